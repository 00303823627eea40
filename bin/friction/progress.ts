/**
 * How a long operator command shows it is moving: on a terminal one line rewritten in place, and
 * otherwise (a pipe, a log file, CI) a plain line per step, so logs read without escape codes.
 */
import type { Writable } from 'node:stream'

export interface Progress {
  /** Shows where the work is now. */
  update(line: string): void
  /** Ends the display, leaving the cursor on a fresh line. */
  done(): void
}

/** A display for stream: rewritten in place on a TTY, one line per update otherwise. */
export function progressOn(stream: Writable): Progress {
  const tty = (stream as Writable & { isTTY?: boolean }).isTTY === true
  let shown = false
  return {
    update(line) {
      if (tty) {
        // \x1b[2K clears what a longer previous line left.
        stream.write(`\r\x1b[2K${line}`)
        shown = true
      } else {
        stream.write(`${line}\n`)
      }
    },
    done() {
      if (tty && shown) stream.write('\n')
      shown = false
    },
  }
}
