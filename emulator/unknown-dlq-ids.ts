/**
 * The emulator's choice where the service's behaviour is not documented: a `dlqIds` batch that
 * mixes IDs in the DLQ with IDs that are not.
 */

/**
 * What a `dlqIds` request with IDs not in the DLQ gets (whether the service refuses the whole
 * batch or resumes the known IDs is not documented): `"refuse"` (default) answers 404 and resumes
 * nothing; `"resume-known"` resumes the IDs it finds and answers 200 with fewer runs than IDs
 * (404 when it finds none).
 */
export type UnknownDlqIds = "refuse" | "resume-known";

/** The values of {@link UnknownDlqIds}. */
export const UNKNOWN_DLQ_IDS_MODES: readonly UnknownDlqIds[] = ["refuse", "resume-known"];
