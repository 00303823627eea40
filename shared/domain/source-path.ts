/**
 * Paths of original files as a person reads them: a source map names its sources relative to the
 * build folder ("../../src/profile.ts") or under a bundler's scheme ("webpack://app/./src/x.ts",
 * "vite:///src/x.ts"); both become "src/profile.ts". Query strings bundlers append ("?v=3") go.
 * In the kernel because two actors must agree on it: the grouper keys and names issues by these
 * paths (culprits read "fn (src/x.ts:7)"), and the dashboard shows frames with them.
 */

/** A map's source name as a project path; '' stays ''. */
export function normalizeSourcePath(source: string): string {
  let path = source.trim().replace(/[?#].*$/s, '').replace(/\\/g, '/')
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(path)
  if (scheme) {
    path = path.slice(scheme[0].length)
    // webpack://<package name>/./src/x.ts: the package name is the bundler's namespace, not a
    // folder. Map readers (trace-mapping among them) resolve the "./" away, leaving
    // webpack://<package name>/src/x.ts; webpack:///src/x.ts has an empty namespace.
    const dot = path.indexOf('/./')
    if (dot >= 0) path = path.slice(dot + 3)
    else if (/^webpack:/i.test(scheme[0]) && !path.startsWith('/')) path = path.slice(path.indexOf('/') + 1)
  }
  const segments = path.split('/').filter((segment) => segment !== '' && segment !== '.')
  // Paths relative to the build folder climb out of it first; what they climb to is the project.
  while (segments[0] === '..') segments.shift()
  const library = segments.lastIndexOf('node_modules')
  return (library > 0 ? segments.slice(library) : segments).join('/')
}
