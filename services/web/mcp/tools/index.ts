/**
 * The tool server's tools, in the order clients list them. Each is one definition (tool.ts) with
 * its input schema in schemas/mcp-*.json; adding a tool is a file here and a line below.
 */
import type { ToolDefinition } from '../tool.js'
import { assignIssueTool } from './assign-issue.js'
import { getIssue } from './get-issue.js'
import { getIssueHistory } from './get-issue-history.js'
import { getLatestDigest } from './get-latest-digest.js'
import { getSetupState } from './get-setup-state.js'
import { ignoreIssue } from './ignore-issue.js'
import { linkPullRequestTool } from './link-pull-request.js'
import { listIssueEvents } from './list-issue-events.js'
import { listIssues } from './list-issues.js'
import { listKnownProblemsTool } from './list-known-problems.js'
import { reopenIssue } from './reopen-issue.js'
import { resolveIssue } from './resolve-issue.js'
import { startFix } from './start-fix.js'

export const TOOLS: readonly ToolDefinition[] = [
  listIssues,
  getIssue,
  listIssueEvents,
  listKnownProblemsTool,
  getSetupState,
  getLatestDigest,
  startFix,
  linkPullRequestTool,
  resolveIssue,
  ignoreIssue,
  reopenIssue,
  assignIssueTool,
  getIssueHistory,
]
