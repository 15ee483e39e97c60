import { useEffect, useState } from 'react';

/** Whether `pending` has lasted `ms` (a request that hangs is said to hang, not left as a spinner). */
export function useSlow(pending: boolean, ms = 5_000): boolean {
  const [slow, setSlow] = useState(false);
  useEffect(() => {
    if (!pending) {
      setSlow(false);
      return;
    }
    const t = setTimeout(() => setSlow(true), ms);
    return () => clearTimeout(t);
  }, [pending, ms]);
  return pending && slow;
}
