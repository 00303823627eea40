import t from 'tap'
import { ensureSdkBuilt, launchChromium } from '../../helpers/browser/browser.js'
import { driveChromium } from './sdk-recording-harness.js'
import { recordingScenarios } from './sdk-recording-scenarios.js'

ensureSdkBuilt()
// Ten scenarios, a few seconds each: room for a busy machine.
t.setTimeout(5 * 60_000)

const browser = await launchChromium(t)
recordingScenarios(t, 'Chromium', (capture, steps) => driveChromium(browser, capture, steps))
