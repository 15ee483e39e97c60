import { ConfirmDialog } from '../../components/ConfirmDialog';
import { useCancelSweep } from '../../queries/sweeps';

/** Asks before a sweep is cancelled, and cancels it: closes once the cancel has settled. */
export function CancelSweepDialog({ sweepId, open, onClose }: { sweepId: string; open: boolean; onClose: () => void }) {
  const cancel = useCancelSweep();
  return (
    <ConfirmDialog
      open={open}
      title="Cancel this sweep?"
      confirmLabel="Cancel the sweep"
      cancelLabel="Keep it running"
      tone="danger"
      busy={cancel.isPending}
      onCancel={onClose}
      onConfirm={() => {
        cancel.mutate(sweepId, { onSettled: onClose });
      }}
      testId="sweep-cancel-dialog"
    >
      <p>Its running jobs stop, every machine it holds is released, and the cells not finished end cancelled. Finished cells keep their figures.</p>
    </ConfirmDialog>
  );
}
