/**
 * A command's output, kept within a byte cap: everything while it fits, then the first half of
 * the cap and the latest half, so both how a run began and how it ended survive a flood.
 */

/** Collects output chunks up to cap bytes (head and tail once over it). */
export class CappedOutput {
  private readonly headMax: number
  private readonly tailMax: number
  private head: Buffer | undefined
  private tail: Buffer[] = []
  private tailBytes = 0
  private total = 0

  constructor(cap: number) {
    this.headMax = Math.ceil(cap / 2)
    this.tailMax = cap - this.headMax
  }

  /** Whether the output went over the cap. */
  get over(): boolean {
    return this.head !== undefined
  }

  /** Adds a chunk; answers false once the output is over the cap. */
  push(chunk: Buffer): boolean {
    this.total += chunk.length
    this.tail.push(chunk)
    this.tailBytes += chunk.length
    if (this.head === undefined) {
      if (this.total <= this.headMax + this.tailMax) return true
      const all = Buffer.concat(this.tail)
      this.head = all.subarray(0, this.headMax)
      this.tail = [all.subarray(this.headMax)]
      this.tailBytes = all.length - this.headMax
    }
    while (this.tail.length > 1 && this.tailBytes - this.tail[0]!.length >= this.tailMax) this.tailBytes -= this.tail.shift()!.length
    if (this.tailBytes > this.tailMax) {
      this.tail[0] = this.tail[0]!.subarray(this.tailBytes - this.tailMax)
      this.tailBytes = this.tailMax
    }
    return false
  }

  /** The kept output as text, with a marker where bytes were cut. */
  text(): string {
    const tail = Buffer.concat(this.tail).toString('utf8')
    if (this.head === undefined) return tail
    const cut = this.total - this.head.length - this.tailBytes
    return `${this.head.toString('utf8')}\n[svc-sandbox: output over the cap; ${cut} bytes cut here]\n${tail}`
  }
}
