/**
 * JSON encoded once and placed, as bytes, into every answer that holds it. An Audience's detail is mostly
 * its member Minds, which rarely change while the Audience around them does (a member added, a rename):
 * stringifying and encoding every member again for each read was most of what the read cost.
 *
 * An answer is put together from encoded parts by their place in it, never by searching its text:
 * `EncodedJson.object` stringifies the runs of plain fields between encoded ones (each run on V8's fast
 * path, which a single `toJSON` anywhere in a value leaves) and lays the bytes of the encoded fields
 * between them. A handler answers the result as its body; `encodeJson` is what every JSON answer is made
 * with.
 */

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();
const OPEN = utf8.encode("[");
const COMMA = utf8.encode(",");
const CLOSE = utf8.encode("]");

/**
 * A piece of an answer: bytes encoded before (a record's view, kept) or text stringified for this answer.
 * Text is encoded only when the answer is joined, straight into it: encoding each short run of plain fields
 * into an array of its own cost an allocation each (about a microsecond apiece, many per detail).
 */
type Piece = Uint8Array | string;

export class EncodedJson<T> {
  private flat: Uint8Array | null = null;

  private readonly pieces: readonly Piece[];
  /**
   * The JSON's bytes in pieces: an answer made of encoded parts keeps theirs and is copied into one
   * array only once, when it is answered (joining at every level copied a detail's 56 KB three times).
   */
  private constructor(pieces: readonly Piece[]) {
    this.pieces = pieces;
  }

  /** Only to carry the type: what the bytes are the JSON of. */
  declare readonly _of?: T;

  /** The JSON's bytes, joined on first use. */
  get bytes(): Uint8Array {
    this.flat ??= this.onePiece() ?? join(this.pieces);
    return this.flat;
  }

  /** The same JSON as one piece: what is kept to be laid into many answers is joined once, not each time. */
  joined(): EncodedJson<T> {
    return this.onePiece() ? this : new EncodedJson([this.bytes]);
  }

  /** The bytes, when they are already one encoded piece. */
  private onePiece(): Uint8Array | undefined {
    const only = this.pieces.length === 1 ? this.pieces[0] : undefined;
    return only instanceof Uint8Array ? only : undefined;
  }

  /** `value`'s JSON. The value must not change afterwards: its bytes are what is reused. */
  static of<T>(value: T): EncodedJson<T> {
    return new EncodedJson([utf8.encode(JSON.stringify(value))]);
  }

  /** A JSON array of encoded items. */
  static array<T>(items: readonly EncodedJson<T>[]): EncodedJson<T[]> {
    const pieces: Piece[] = [OPEN];
    for (let i = 0; i < items.length; i++) {
      if (i > 0) pieces.push(COMMA);
      for (const piece of (items[i] as EncodedJson<T>).pieces) pieces.push(piece);
    }
    pieces.push(CLOSE);
    return new EncodedJson(pieces);
  }

  /**
   * A JSON object of `fields` in their order; a field that is an `EncodedJson`, or an array of nothing
   * else, is laid in as its bytes. Fields JSON would leave out (undefined, functions) are left out.
   */
  static object<T extends object>(fields: T): EncodedJson<Decoded<T>> {
    const pieces: Piece[] = [];
    let text = "{";
    let first = true;
    let run: Record<string, unknown> | null = null;
    const member = (json: string) => {
      text += first ? json : `,${json}`;
      first = false;
    };
    const flush = () => {
      if (run === null) return;
      const json = JSON.stringify(run);
      if (json.length > 2) member(json.slice(1, -1));
      run = null;
    };
    for (const [key, value] of Object.entries(fields)) {
      const encoded =
        value instanceof EncodedJson ? value : isEncodedArray(value) ? EncodedJson.array(value) : null;
      if (encoded === null) {
        // No prototype: a field named __proto__ is a field like any other, as in the value.
        run ??= Object.create(null) as Record<string, unknown>;
        run[key] = value;
        continue;
      }
      flush();
      member(`${JSON.stringify(key)}:`);
      pieces.push(text);
      for (const piece of encoded.pieces) pieces.push(piece);
      text = "";
    }
    flush();
    pieces.push(`${text}}`);
    return new EncodedJson(pieces);
  }

  /** Stringified anywhere but in an answer (a test, a log), it is the JSON it stands for. */
  toJSON(): unknown {
    return JSON.parse(fromUtf8.decode(this.bytes));
  }
}

/**
 * Values kept by the object they were made from, for objects that are replaced, never changed (a Mind
 * record, a chart): each is made the first time it is asked for, and dropped with its object.
 */
export class KeptBy<K extends object, V> {
  private readonly kept = new WeakMap<K, V>();

  private readonly make: (key: K) => V;
  constructor(make: (key: K) => V) {
    this.make = make;
  }

  of(key: K): V {
    let value = this.kept.get(key);
    if (value === undefined) {
      value = this.make(key);
      this.kept.set(key, value);
    }
    return value;
  }
}

/**
 * Values made from a list of records that are replaced, never changed (an Audience's member Minds), kept
 * for the latest few lists of each owner. A read is far more frequent than a change of the list, and a list
 * often comes back (a member added and removed again; callers reading on either side of a change).
 */
export class KeptByRecords<O extends object, R, V> {
  private readonly kept = new WeakMap<O, { records: readonly R[]; value: V }[]>();

  private readonly make: (records: readonly R[]) => V;
  private readonly latest: number;
  constructor(make: (records: readonly R[]) => V, latest = 2) {
    this.make = make;
    this.latest = latest;
  }

  of(owner: O, records: readonly R[]): V {
    let lists = this.kept.get(owner);
    if (lists === undefined) {
      lists = [];
      this.kept.set(owner, lists);
    }
    for (const k of lists) if (sameRecords(k.records, records)) return k.value;
    const value = this.make(records);
    lists.unshift({ records, value });
    if (lists.length > this.latest) lists.pop();
    return value;
  }
}

function sameRecords<R>(a: readonly R[], b: readonly R[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** An object's view, encoded once per object (`KeptBy`). */
export function encodedBy<K extends object, T>(view: (key: K) => T): KeptBy<K, EncodedJson<T>> {
  return new KeptBy((key: K) => EncodedJson.of(view(key)));
}

function isEncodedArray(value: unknown): value is EncodedJson<unknown>[] {
  return Array.isArray(value) && value.length > 0 && value.every((v) => v instanceof EncodedJson);
}

/** What a value holding encoded parts is as JSON: each `EncodedJson<T>` read as its `T`. */
export type Decoded<T> =
  T extends EncodedJson<infer U>
    ? U
    : T extends readonly (infer E)[]
      ? Decoded<E>[]
      : T extends object
        ? { [K in keyof T]: Decoded<T[K]> }
        : T;

/** An answer's JSON: the text of a value, or the bytes of an encoded one. */
export function encodeJson(value: unknown): string | Uint8Array {
  return value instanceof EncodedJson ? value.bytes : JSON.stringify(value);
}

/**
 * The pieces in one array. Text is encoded in place; its room is reserved at three bytes per UTF-16 unit
 * (the most UTF-8 needs), so the answer is a view of an array at most that much longer than it.
 */
function join(pieces: readonly Piece[]): Uint8Array {
  let room = 0;
  for (const p of pieces) room += typeof p === "string" ? p.length * 3 : p.byteLength;
  const out = new Uint8Array(room);
  let at = 0;
  for (const p of pieces) {
    if (typeof p === "string") at += utf8.encodeInto(p, out.subarray(at)).written;
    else {
      out.set(p, at);
      at += p.byteLength;
    }
  }
  return at === room ? out : out.subarray(0, at);
}
