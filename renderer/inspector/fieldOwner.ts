// Which element a form edits and where in the job its values are, for the inputs inside it: an
// input whose text is not applied is listed in the Problems panel under that element and path.
import { createContext } from 'react';
import type { FieldOwner } from '../store/unappliedFields';
import type { PathSegments } from './problemPaths';

export interface FieldPlace {
  readonly owner: FieldOwner;
  /** Where the form's values are in the job, e.g. ["operators", 2, "params"]. */
  readonly path: PathSegments;
}

export const FieldPlaceContext = createContext<FieldPlace | undefined>(undefined);
