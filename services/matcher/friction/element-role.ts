/**
 * What kind of thing a recorded element is to the detectors: a control made to answer a click,
 * text entry (a click places the caret), or anything else; and what of its attributes may name it.
 */
/** What kind of thing a click landed on, for the detectors' rules. */
export type TargetRole = 'control' | 'text_entry' | 'other'

/** Input types that take typed text: clicking in them places a caret, which changes no page. */
const TEXT_INPUTS = new Set(['', 'text', 'search', 'email', 'password', 'tel', 'url', 'number', 'date', 'datetime-local', 'month', 'time', 'week'])
const BUTTON_INPUTS = new Set(['button', 'submit', 'reset', 'image'])
const CONTROL_ROLES = new Set(['button', 'link', 'menuitem', 'tab', 'option', 'switch'])

/**
 * A control is something made to answer a click on this page: a button, a link that stays in this
 * tab and is not a download or another app's address (mail, phone), a button-like input, a
 * summary, or an element with a button-like role. Text entry takes clicks to place the caret.
 */
export function roleOf(node: { tag?: string; attributes: Record<string, unknown> }): TargetRole {
  const attributes = node.attributes
  const type = typeof attributes.type === 'string' ? attributes.type.toLowerCase() : ''
  if (node.tag === 'textarea' || node.tag === 'select' || (node.tag === 'input' && TEXT_INPUTS.has(type))) return 'text_entry'
  if (present(attributes.contenteditable) && attributes.contenteditable !== 'false') return 'text_entry'
  if (node.tag === 'button' || node.tag === 'summary' || (node.tag === 'input' && BUTTON_INPUTS.has(type))) return 'control'
  if (node.tag === 'a' && typeof attributes.href === 'string') {
    const leaves = (typeof attributes.target === 'string' && attributes.target !== '' && attributes.target !== '_self') || present(attributes.download)
    return leaves || /^\s*(mailto|tel|sms):/i.test(attributes.href) ? 'other' : 'control'
  }
  if (typeof attributes.role === 'string' && CONTROL_ROLES.has(attributes.role.toLowerCase())) return 'control'
  return 'other'
}

/** Whether a recorded attribute is set: rrweb writes a removed one as null, a boolean one as '' or true. */
function present(value: unknown): boolean {
  return value !== undefined && value !== null && value !== false
}

/** An input's value names a button (`<input type=submit value="Pay">`); a masked one (`***`) names nothing. */
export function maskedOrValue(value: unknown): unknown {
  return typeof value === 'string' && /^\**$/.test(value.trim()) ? undefined : value
}
