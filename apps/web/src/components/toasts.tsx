/**
 * Short confirmations of finished work (deployed, saved, deleted, run finished, key created).
 * The live region is always in the document, so screen readers announce what is added to it, and
 * a toast never takes focus: whoever is typing keeps their place. Toasts sit over the page, fixed
 * in a corner, so showing one never moves anything.
 */
import { createContext, useCallback, useContext, useMemo, useRef, useState, type ReactNode } from 'react';
import { Link } from 'react-router';

export interface ToastLink {
  readonly to: string;
  readonly label: string;
}
export interface ToastInput {
  readonly message: string;
  readonly tone?: 'success' | 'error';
  readonly links?: readonly ToastLink[];
}
interface Toast extends ToastInput {
  readonly id: number;
}

const SHOWN_MS = 8000;
const ToastContext = createContext<(toast: ToastInput) => void>(() => undefined);

export function useToast(): (toast: ToastInput) => void {
  return useContext(ToastContext);
}

export function ToastProvider({ children }: { readonly children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const next = useRef(0);
  const dismiss = useCallback((id: number) => setToasts((all) => all.filter((toast) => toast.id !== id)), []);
  const show = useCallback(
    (input: ToastInput) => {
      next.current += 1;
      const id = next.current;
      // The newest three: a burst of actions must not cover the page.
      setToasts((all) => [...all, { ...input, id }].slice(-3));
      setTimeout(() => dismiss(id), SHOWN_MS);
    },
    [dismiss],
  );
  const value = useMemo(() => show, [show]);
  return (
    <ToastContext.Provider value={value}>
      {children}
      <div className="toasts" role="status" aria-live="polite">
        {toasts.map((toast) => (
          <div key={toast.id} className={`toast toast-${toast.tone ?? 'success'}`}>
            <span className="toast-message">{toast.message}</span>
            {toast.links?.map((link) => (
              <Link key={link.to} to={link.to} className="toast-link">
                {link.label}
              </Link>
            ))}
            <button
              type="button"
              className="toast-close"
              // Not the message: a toast's words ("Saved …") must not also name a button the page has.
              aria-label="Dismiss notification"
              onClick={() => dismiss(toast.id)}
            >
              ×
            </button>
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  );
}
