// Generated from rules::Variant by client/src/api_types.rs (VariantInfo::all): do not edit.
// Regenerate: FOGPROOF_WRITE_TYPES=1 cargo test -p fogproof-client --lib api_types
import type { VariantInfo } from './VariantInfo';
import type { Variant } from './Variant';

/** Every game fogproof plays, in rules::Variant::ALL's order. */
export const VARIANTS: readonly VariantInfo[] = [
  {
    "id": "chess",
    "name": "Chess",
    "key": "standard",
    "size": 8,
    "mode": "open"
  },
  {
    "id": "kriegspiel",
    "name": "Kriegspiel",
    "key": "kriegspiel",
    "size": 8,
    "mode": "umpire"
  },
  {
    "id": "sic",
    "name": "Secret Intelligence Chess",
    "key": "sic",
    "size": 8,
    "mode": "umpire"
  },
  {
    "id": "intrigue",
    "name": "Intrigue",
    "key": "intrigue",
    "size": 8,
    "mode": "owner"
  },
  {
    "id": "secretchess6",
    "name": "6x6 Secret Chess",
    "key": "secretchess6",
    "size": 6,
    "mode": "umpire"
  },
  {
    "id": "espionage",
    "name": "Espionage Chess",
    "key": "espionage",
    "size": 7,
    "mode": "open"
  }
];

/** The name the pages show for a variant id (the id itself if unknown). */
export function variantName(id: string | null | undefined): string {
  return VARIANTS.find((v) => v.id === id || v.key === id)?.name ?? String(id ?? '');
}

/** Whether `id` names a variant. */
export function isVariant(id: unknown): id is Variant {
  return VARIANTS.some((v) => v.id === id);
}
