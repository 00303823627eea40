/**
 * The known problems list as a person sees it in Chromium at 1280 px: its table's headers keep
 * their words whole, however long the targets in its rows.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Page } from 'playwright-core'
import t from 'tap'
import { cookieName } from '../../services/web/http/cookies.js'
import { launchChromium } from '../helpers/browser/browser.js'
import { approveNewProject, DashboardClient } from '../helpers/dashboard.js'
import { seedEnvironment, seedTicket } from '../helpers/investigation/friction-seed.js'
import { startTestStack } from '../helpers/stack.js'
import { seededByHand } from '../helpers/suite-invariants.js'

const SHOTS = fileURLToPath(new URL('../../tmp/screenshots/', import.meta.url))

/**
 * The words in the elements' text that the layout broke over lines: each word measured alone, one
 * box being one line. A hyphen ends a word here: a line may end after one, as in any text.
 */
async function brokenWords(tab: Page, selector: string): Promise<string[]> {
  return tab.locator(selector).evaluateAll((elements) => {
    interface TextNode {
      textContent: string
    }
    interface Doc {
      createTreeWalker(root: unknown, show: number): { nextNode(): TextNode | null }
      createRange(): { setStart(node: TextNode, offset: number): void; setEnd(node: TextNode, offset: number): void; getClientRects(): { length: number } }
    }
    const broken: string[] = []
    for (const element of elements) {
      const doc = (element as unknown as { ownerDocument: Doc }).ownerDocument
      const walker = doc.createTreeWalker(element, 4 /* NodeFilter.SHOW_TEXT */)
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (const match of node.textContent.matchAll(/[^\s-]+/g)) {
          const range = doc.createRange()
          range.setStart(node, match.index)
          range.setEnd(node, match.index + match[0].length)
          if (range.getClientRects().length !== 1) broken.push(match[0])
        }
      }
    }
    return broken
  })
}

t.test('in Chromium at 1280 px, no header of the known problems list breaks inside a word', async (t) => {
  const stack = await startTestStack(t)
  await seededByHand(stack.db)
  const client = new DashboardClient(stack.baseUrl)
  await client.signUp('dev@example.test')
  const projectId = await approveNewProject(stack, client, 'Shop')
  const environmentId = await seedEnvironment(stack.db, projectId, 'production')
  // Rows as the matcher leaves them: long targets and pages, and checks of every verdict.
  for (const [state, target] of [
    ['awaiting_approval', 'button#pay-with-saved-card.checkout-primary.checkout-primary--large "Pay 42.00 EUR with the card ending 4242"'],
    ['candidate', 'a.terms-and-conditions-link "Terms and conditions of sale"'],
  ]) {
    const { ticketId } = await seedTicket(stack.db, projectId, environmentId, state!)
    await stack.db.query(
      `UPDATE tickets SET target = $2, page = '/checkout/payment/review-and-confirm', users = 1234, matched = 56789, checks_confirmed = 123, checks_refuted = 45, checks_inconclusive = 6, published_at = CASE WHEN state <> 'candidate' THEN now() END WHERE id = $1`,
      [ticketId, target],
    )
  }

  const browser = await launchChromium(t)
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  await context.addCookies([{ name: cookieName('session', false), value: client.cookies.get(cookieName('session', false))!, url: stack.baseUrl }])
  const tab = await context.newPage()
  t.equal((await tab.goto(`${stack.baseUrl}/projects/${projectId}/known-problems`))?.status(), 200)
  t.equal(await tab.locator('table.known-problems tbody tr').count(), 2, 'both rows are listed')

  t.same(await brokenWords(tab, 'table.known-problems thead th'), [], 'every header word on one line')
  // The cells of short words too (state, kind, counts, checks, publication); the problem's target
  // and page are recorded text, which may break anywhere.
  t.same(await brokenWords(tab, 'table.known-problems tbody td:not(:first-child)'), [], 'and every word of the short cells')
  t.same(await tab.locator('table.known-problems thead th').allTextContents(), ['Problem', 'State', 'Kind', 'Users', 'Recordings', 'Checks', 'Published', 'Last activity'], 'the headers measured')
  const overflow = await tab.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')
  t.equal(overflow, 0, 'and the page does not scroll sideways for it')
  mkdirSync(SHOTS, { recursive: true })
  await tab.screenshot({ path: join(SHOTS, 'known-problems-1280.png'), fullPage: true })
})
