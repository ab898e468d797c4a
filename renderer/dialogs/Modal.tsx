// A modal <dialog>, shown as soon as it mounts; Escape answers like Cancel. Used by the dialog
// service's prompts and by the run commands' own questions.
import { type ReactNode, useEffect, useRef } from 'react';

export function Modal({
  label,
  onCancel,
  children,
  className = 'modal',
}: {
  label: string;
  onCancel: () => void;
  children: ReactNode;
  /** Another size or layout than a prompt's (e.g. the wide code editor). */
  className?: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (d !== null && !d.open) d.showModal();
  }, []);
  return (
    <dialog
      ref={ref}
      className={className}
      aria-label={label}
      onCancel={(e) => {
        e.preventDefault();
        onCancel();
      }}
    >
      {children}
    </dialog>
  );
}
