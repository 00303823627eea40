/**
 * The text a chat plugin is given is written for Slack's mrkdwn, the first chat tool: &, < and >
 * arrive as the entities &amp;, &lt; and &gt; (so event text cannot mention a channel or hide a
 * link), and event text sits inside inline code (backticks). Discord and a generic receiver read
 * none of those entities, so their plugins turn them back into the characters before sending.
 */

const ENTITIES: Readonly<Record<string, string>> = Object.freeze({ '&amp;': '&', '&lt;': '<', '&gt;': '>' })

/** The text with Slack's three entities decoded, in one pass (so "&amp;lt;" becomes "&lt;", as written). */
export function decodeChatEntities(text: string): string {
  return text.replace(/&(?:amp|lt|gt);/g, (entity) => ENTITIES[entity] ?? entity)
}
