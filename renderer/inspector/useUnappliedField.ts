// Tells the store while an input holds text that is no value (see unappliedFields.ts), so that
// the Problems panel lists it and a save says it left it out; an input that goes away, or whose
// text is taken or given up, takes its entry with it.
import { useContext, useEffect } from 'react';
import { formatJsonPath } from '../../engine/graph/index.js';
import { useDesignerStore } from '../store/designerContext';
import { FieldPlaceContext } from './fieldOwner';
import type { PathSegments } from './problemPaths';

export interface InputState {
  /** The input's id: one entry per input. */
  readonly key: string;
  readonly label: string;
  /** Where the value is, inside the form's place. */
  readonly at: PathSegments;
  readonly text: string;
  /** Why the text was refused; undefined while it is applied. */
  readonly error: string | undefined;
  /** The value the job keeps, as the input writes it. */
  readonly kept: string;
}

export function useUnappliedField({ key, label, at, text, error, kept }: InputState): void {
  const store = useDesignerStore();
  const place = useContext(FieldPlaceContext);
  const path = place === undefined ? undefined : formatJsonPath([...place.path, ...at]);
  const ownerKind = place?.owner.kind;
  const ownerId = place?.owner.kind === 'job' ? undefined : place?.owner.id;
  useEffect(() => {
    if (error === undefined || path === undefined || ownerKind === undefined) return;
    const owner = ownerKind === 'job' ? ({ kind: 'job' } as const) : { kind: ownerKind, id: ownerId ?? '' };
    store.getState().setUnappliedField(key, { key, owner, label, path, text, reason: error, kept });
    return () => store.getState().setUnappliedField(key, undefined);
  }, [store, key, label, path, text, error, kept, ownerKind, ownerId]);
}
