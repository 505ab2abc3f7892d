// How a schema message carries its fix (no imports: every config file may use it).

/**
 * Zod carries one message string per issue; schemas put the fix after this mark so that an error
 * can say both what is wrong and what to do (see `describeIssue`).
 */
export const FIX_MARK = "\n";
export const withFix = (reason: string, fix: string) => `${reason}${FIX_MARK}${fix}`;
