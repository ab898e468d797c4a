// Promise-based dialogs for the parts of the app that are not React components (commands).
// The DialogHost component renders whichever request is pending; in Electron the native
// dialogs are used for files instead and only the prompts come through here.
import { createStore } from 'zustand/vanilla';

export type DialogRequest =
  | {
      readonly kind: 'file';
      readonly mode: 'open' | 'save';
      readonly title: string;
      readonly startDir: string;
      readonly defaultName?: string;
      /** What choosing a path will do besides, said above the buttons. */
      readonly note?: string;
      readonly resolve: (path: string | undefined) => void;
    }
  | {
      readonly kind: 'unsaved';
      readonly title: string;
      readonly resolve: (answer: 'save' | 'discard' | 'cancel') => void;
    }
  | { readonly kind: 'message'; readonly title: string; readonly text: string; readonly resolve: () => void };

export function createDialogService() {
  const store = createStore<{ request: DialogRequest | undefined }>()(() => ({ request: undefined }));
  const show = <T>(make: (resolve: (v: T) => void) => DialogRequest) =>
    new Promise<T>((resolve) => {
      store.setState({
        request: make((value: T) => {
          store.setState({ request: undefined });
          resolve(value);
        }),
      });
    });
  return {
    store,
    pickFile(options: {
      mode: 'open' | 'save';
      title: string;
      startDir: string;
      defaultName?: string;
      note?: string;
    }) {
      return show<string | undefined>((resolve) => ({ kind: 'file', ...options, resolve }));
    },
    askUnsaved(title: string) {
      return show<'save' | 'discard' | 'cancel'>((resolve) => ({ kind: 'unsaved', title, resolve }));
    },
    message(title: string, text: string) {
      return show<void>((resolve) => ({ kind: 'message', title, text, resolve }));
    },
  };
}

export type DialogService = ReturnType<typeof createDialogService>;
