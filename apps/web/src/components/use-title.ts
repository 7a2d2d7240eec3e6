import { useEffect } from 'react';

/** The tab's title names the screen, so history, tabs and screen readers tell pages apart. */
export function useTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · Tributary`;
  }, [title]);
}
