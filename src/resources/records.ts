/**
 * Every table a world snapshot carries, by its name there, and the record each holds. Nothing reads this
 * at run time: `npm run generate:record-schema` makes `records.schema.json` from it, against which a
 * loaded snapshot's records are checked (src/resources/integrity.ts), so the check follows these types
 * rather than restating them. A table added to the state without a line here is refused in a snapshot.
 */
import type {
  ApiKeyRecord,
  AudienceRecord,
  FormationRecord,
  IdempotencyRecord,
  MindRecord,
  StudyRecord,
  TeamRecord,
  UserRecord,
} from "../core/world/state.ts";
import type { CheckoutSessionRecord, CreditAccount, Price } from "./checkout/records.ts";
import type { ExportRecord } from "./exports/records.ts";
import type { RunRecord } from "./progress/training.ts";
import type { AudienceQueue, OperationRecord } from "./recalibration/records.ts";

export interface SnapshotTables {
  users: UserRecord;
  apiKeys: ApiKeyRecord;
  /** Key hash to key ID. */
  apiKeyByHash: string;
  teams: TeamRecord;
  minds: MindRecord;
  audiences: AudienceRecord;
  studies: StudyRecord;
  formations: FormationRecord;
  idempotency: IdempotencyRecord;
  "recalibration.queues": AudienceQueue;
  "recalibration.operations": OperationRecord;
  checkoutSessions: CheckoutSessionRecord;
  credits: CreditAccount;
  exports: ExportRecord;
  prices: Price;
  "training.runs": RunRecord;
}
