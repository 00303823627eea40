import t from 'tap'
import { ensureSdkBuilt } from '../../helpers/browser/browser.js'
import { driveFirefox } from './sdk-recording-harness.js'
import { recordingScenarios } from './sdk-recording-scenarios.js'

ensureSdkBuilt()
// Ten scenarios, each starting Firefox ESR anew: more than the default two minutes on a busy machine.
t.setTimeout(8 * 60_000)

recordingScenarios(t, 'Firefox ESR', (capture, steps) => driveFirefox(capture, steps))
