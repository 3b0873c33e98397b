/**
 * An object of tables each made the first time it is read: a world's copy of a template's tables
 * (src/core/world/template.ts), a template's tables read from the text a build shipped (src/core/world/template-data.ts).
 * Most requests read a few tables of the ten, and a world need not copy, nor a start parse, the others
 * before they are asked for: the default world's first answer waited for some 250 KB of Audiences it never
 * looked at.
 *
 * Each table is an own, enumerable accessor property, so code that walks the tables (`Object.entries`, a
 * snapshot, a digest) sees and makes every one as it would read a plain object's. The accessors of one name
 * are the same functions on every such object, so objects with the same names share one hidden class in
 * V8 and the code that reads `state.users` stays monomorphic however many worlds there are; what a table
 * holds lives in a slot beside it, not in a property replaced on first read.
 */

const SLOTS = Symbol("tables");

interface Slots {
  values: unknown[];
  make: (name: string) => unknown;
}

type Lazy = { [SLOTS]: Slots };

/** Per name and position, the accessors every lazy object with that table there shares. */
const accessors = new Map<string, PropertyDescriptor>();

function accessorsOf(name: string, index: number): PropertyDescriptor {
  const key = `${index}:${name}`;
  let known = accessors.get(key);
  if (!known) {
    known = {
      get(this: Lazy) {
        const slots = this[SLOTS];
        let value = slots.values[index];
        if (value === undefined) {
          value = slots.make(name);
          slots.values[index] = value;
        }
        return value;
      },
      set(this: Lazy, value: unknown) {
        this[SLOTS].values[index] = value;
      },
      enumerable: true,
      configurable: false,
    };
    accessors.set(key, known);
  }
  return known;
}

/**
 * An object with a property per name, in that order, whose value is `make(name)` made on its first read
 * (and kept); a property may be set as on a plain object. `make` must not return undefined.
 */
export function lazyTables<T extends object>(names: readonly string[], make: (name: string) => unknown): T {
  const target = {} as Lazy;
  Object.defineProperty(target, SLOTS, {
    value: { values: names.map(() => undefined), make } satisfies Slots,
  });
  names.forEach((name, index) => {
    Object.defineProperty(target, name, accessorsOf(name, index));
  });
  return target as unknown as T;
}
