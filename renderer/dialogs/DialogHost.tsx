// Renders the pending dialog of the dialog service as a modal <dialog>.
import { useStore } from 'zustand';
import type { DialogService } from './dialogService';
import { FileDialog } from './FileDialog';
import { Modal } from './Modal';

export function DialogHost({ dialogs }: { dialogs: DialogService }) {
  const request = useStore(dialogs.store, (s) => s.request);
  if (request === undefined) return null;
  switch (request.kind) {
    case 'file':
      return (
        <Modal label={request.title} onCancel={() => request.resolve(undefined)}>
          <FileDialog request={request} />
        </Modal>
      );
    case 'unsaved':
      return (
        <Modal label="Unsaved changes" onCancel={() => request.resolve('cancel')}>
          <h2>Save changes to {request.title}?</h2>
          <p>Your changes are lost if you don't save them.</p>
          <div className="modal-buttons">
            <button type="button" className="primary" onClick={() => request.resolve('save')}>
              Save
            </button>
            <button type="button" onClick={() => request.resolve('discard')}>
              Don't save
            </button>
            <button type="button" onClick={() => request.resolve('cancel')}>
              Cancel
            </button>
          </div>
        </Modal>
      );
    case 'message':
      return (
        <Modal label={request.title} onCancel={() => request.resolve()}>
          <h2>{request.title}</h2>
          <p className="pre">{request.text}</p>
          <div className="modal-buttons">
            <button type="button" className="primary" onClick={() => request.resolve()}>
              OK
            </button>
          </div>
        </Modal>
      );
  }
}
