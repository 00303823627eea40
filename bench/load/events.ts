/** Realistic ~2 KB browser error events for the benchmarks, varied by index over 200 bugs. */

const FILES = ['index', 'cart', 'checkout', 'profile', 'search', 'vendor']

/** The n-th event: 200 distinct bugs, 5,000 sessions, 1,000 users. */
export function realisticEvent(n: number): Record<string, unknown> {
  const bug = n % 200
  const file = FILES[bug % FILES.length]
  const frames = Array.from({ length: 10 }, (_, i) => `    at fn${bug}_${i} (https://shop.example.com/assets/${file}-4f3a9c2b.js:${100 + i}:${20 + bug})`)
  return {
    timestamp: new Date().toISOString(),
    error: {
      type: 'TypeError',
      message: `Cannot read properties of undefined (reading 'field${bug}')`,
      stack: [`TypeError: Cannot read properties of undefined (reading 'field${bug}')`, ...frames].join('\n'),
    },
    breadcrumbs: Array.from({ length: 8 }, (_, i) => ({ type: 'click', category: 'ui', message: `button#buy-${i} > span.label`, timestamp: Date.now() - i * 1000 })),
    context: { url: `https://shop.example.com/${file}?item=${n % 977}`, user_agent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36' },
    sdk_version: '0.1.0',
    platform: 'javascript',
    environment: 'production',
    release: 'shop@1.4.2',
    session_id: `session-${n % 5000}`,
    // As the SDK sends every event: the ingress derives the stored id from it (a hash per event).
    event_id: `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`,
    user: { id: `user-${n % 1000}` },
  }
}
