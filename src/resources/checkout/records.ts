/**
 * Checkout's records: a session as the world keeps it, the body it answers, and the credits bought. In a
 * module of their own so that the routes and the dashboard's view both read them, neither through the other.
 */
import type { Manifest } from "../../core/world/manifest.ts";

export type Price = Manifest["prices"][string];
export type CheckoutStatus = "requires_escalation" | "completed" | "canceled" | "expired";

export interface CheckoutSessionRecord {
  id: string;
  ownerId: string;
  status: CheckoutStatus;
  /** The catalogue price as it was when the session was created. */
  price: Price;
  quantity: number;
  lineItemId: string;
  capabilities: Record<string, unknown>;
  metadata: Record<string, unknown>;
  /**
   * Where the buyer's pages of this world live: the origin the create request reached, followed by the
   * world's page base (a sandbox's `/sandboxes/<id>`). `continue_url` and the order's permalink start here.
   */
  origin: string;
  createdAt: number;
  expiresAt: number;
  completedAt: number | null;
  canceledAt: number | null;
  /** Drawn at creation (so the buyer's page needs no randomness), revealed once the buyer completed. */
  orderId: string;
  idempotencyKey: string;
  /** Canonical JSON of the create body: a replay must match it. */
  fingerprint: string;
  /** The 201 body, replayed as is for the same key and body. */
  created: CheckoutSessionBody;
}

/** Response credits bought through checkout, per user. */
export interface CreditAccount {
  userId: string;
  /** Credit packs bought (each is one unit of a `credits` price). */
  packs: number;
  purchases: { sessionId: string; orderId: string; priceId: string; quantity: number; at: number }[];
}

export interface AcpMessage {
  type: "info" | "error";
  code?: "invalid";
  content_type: "plain";
  content: string;
}

export interface CheckoutSessionBody {
  id: string;
  status: CheckoutStatus;
  currency: Price["currency"];
  line_items: {
    id: string;
    item: { id: string; quantity: number };
    name: string;
    unit_amount: number;
    base_amount: number;
    discount: number;
    subtotal: number;
    tax: number;
    total: number;
  }[];
  totals: { type: "subtotal" | "tax" | "total"; display_text: string; amount: number }[];
  messages: AcpMessage[];
  links: { type: "terms_of_use"; url: string; title: string }[];
  continue_url: string;
  capabilities: Record<string, unknown>;
  metadata: Record<string, unknown>;
  created_at: string;
  expires_at: string;
  order: { id: string; checkout_session_id: string; permalink_url: string } | null;
}
