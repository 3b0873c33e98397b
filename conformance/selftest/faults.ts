/**
 * One deliberate fault per case, each paired with the check that must report it. The faults are written
 * against the simulator's behaviour (a wrapper around its fetch), never inside it.
 */

import type { FaultCase } from "./fault-kit.ts";
import { CONTRACT_FAULTS } from "./faults-contract.ts";
import { DOMAIN_FAULTS } from "./faults-domain.ts";
import { LIMITS_FAULTS } from "./faults-limits.ts";
import { SENTENCE_FAULTS } from "./faults-sentences.ts";
import { SENTENCE_FAULTS_2 } from "./faults-sentences-2.ts";
import { SEQUENCE_FAULTS } from "./faults-sequences.ts";
import { WORLD_FAULTS } from "./faults-world.ts";

export type { FaultCase } from "./fault-kit.ts";

/** Every fault case, by the checks that must report it. */
export const FAULTS: FaultCase[] = [
  ...CONTRACT_FAULTS,
  ...LIMITS_FAULTS,
  ...DOMAIN_FAULTS,
  ...WORLD_FAULTS,
  ...SEQUENCE_FAULTS,
  ...SENTENCE_FAULTS,
  ...SENTENCE_FAULTS_2,
];
