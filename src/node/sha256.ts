/**
 * The node host's SHA-256 (src/core/auth.ts): node:crypto's one-shot `hash`, synchronous, where WebCrypto's
 * answers through a promise and loads its own modules on first use (about 5 ms before the default world
 * could answer, measured from outside).
 */
import { hash } from "node:crypto";
import type { Sha256 } from "../core/auth.ts";

export const nodeSha256: Sha256 = (text) => hash("sha256", text, "hex");
