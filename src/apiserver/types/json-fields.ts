// A catalog type's fields as its JSON object has them: Go structs embedded with `json:",inline"`
// contribute their own fields to the parent's object instead of a field of their own.
import { type FieldDef, type TypeDef, typeDef } from './catalog.js';

const cache = new WeakMap<TypeDef, FieldDef[]>();

/** The JSON fields of a type, inline structs flattened, the first declaration of a name winning. Shared: do not mutate. */
export function jsonFields(t: TypeDef): FieldDef[] {
  let fields = cache.get(t);
  if (fields === undefined) {
    const out = new Map<string, FieldDef>();
    const add = (type: TypeDef, depth: number) => {
      for (const f of type.fields) {
        if (f.inline) {
          const inner = typeDef(f.type);
          if (inner && depth < 8) add(inner, depth + 1);
        } else if (!out.has(f.name)) {
          out.set(f.name, f);
        }
      }
    };
    add(t, 0);
    fields = [...out.values()];
    cache.set(t, fields);
  }
  return fields;
}
