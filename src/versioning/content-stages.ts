/**
 * The stages a staff member sees a record of a content table in (README "Staff API: content tables"), each a
 * condition on core_data (alias `d`) that holds for at most one version of a record:
 * - draft: the current version is New, Editing or Rolled Back, and neither published nor staged;
 * - staged: the newest version staged and not published (waiting to be promoted);
 * - published: the version published, whose expiry date has not passed (one scheduled for later included);
 * - expired: the current version is Expired, or the published version's expiry date has passed (before the
 *   expiry job turns it Expired).
 * A deleted record is in none. `staged` alone can hold for several versions of a record (staging a new
 * version leaves the old one staged): its readers take the newest (DISTINCT ON, count DISTINCT).
 */
export const CONTENT_STAGES = ['draft', 'staged', 'published', 'expired'] as const;
export type ContentStage = (typeof CONTENT_STAGES)[number];

const PUBLISHED_NOT_DUE = `d."Published" = 1 AND (d."Publish_Expire_Date" IS NULL OR d."Publish_Expire_Date" > now())`;

export const STAGE_SQL: Record<ContentStage, string> = {
  draft: `d."IsCurrent" = 1 AND d."Status" IN ('New', 'Editing', 'Rolled Back') AND d."Published" = 0 AND d."Staged" = 0`,
  staged: `d."Staged" = 1 AND d."Published" = 0 AND d."IsExpired" <> 1`,
  published: `${PUBLISHED_NOT_DUE} AND d."IsExpired" <> 1`,
  expired: `((d."IsCurrent" = 1 AND d."Status" = 'Expired') OR (d."Published" = 1 AND d."Publish_Expire_Date" <= now()))`,
};
