// Zoomed out past FAR_ZOOM, an operator's text would be a few pixels high: cards are drawn as
// blocks of their role's colour with only their port handles, and edges lose their labels. This
// is a rendering decision, not only a style: a 500-operator job fits the screen at about zoom
// 0.07, and drawing the text nobody can read there tripled the DOM the first render builds.
import { createContext, useContext } from 'react';

export const FAR_ZOOM = 0.35;

export const FarZoomContext = createContext(false);

export function useFarZoom(): boolean {
  return useContext(FarZoomContext);
}
