import { jsonObject as o, jsonString as s } from '../../shared/json-read';
import { AGE, NAME, ageOf, col, meta, nameOf, type Printer } from './table-printer';

/** Volumes, claims and storage classes, as Kubernetes' printers show them. */

/** Access modes as kubectl abbreviates them: RWO, ROX, RWX, RWOP. */
function accessModes(modes: unknown): string {
  const short: Record<string, string> = { ReadWriteOnce: 'RWO', ReadOnlyMany: 'ROX', ReadWriteMany: 'RWX', ReadWriteOncePod: 'RWOP' };
  return (Array.isArray(modes) ? modes.map(String) : []).map((m) => short[m] ?? m).join(',');
}

export const persistentvolumeclaims: Printer = {
  columns: [
    NAME,
    col('Status', 'Phase represents the current phase of PersistentVolumeClaim.'),
    col('Volume', 'VolumeName is the binding reference to the PersistentVolume backing this claim.'),
    col('Capacity', 'capacity represents the actual resources of the underlying volume.'),
    col('Access Modes', 'accessModes contains the actual access modes the volume backing the PVC has.'),
    col('StorageClass', 'StorageClassName is the name of the StorageClass required by the claim.'),
    AGE,
    col('VolumeMode', 'volumeMode defines what type of volume is required by the claim.', { priority: 1 }),
  ],
  cells(pvc, now) {
    const spec = o(pvc.spec);
    const status = o(pvc.status);
    const bound = s(status.phase) === 'Bound';
    return [
      nameOf(pvc),
      s(status.phase) || 'Pending',
      s(spec.volumeName),
      bound ? s(o(status.capacity).storage) : '',
      bound ? accessModes(status.accessModes) : '',
      s(spec.storageClassName),
      ageOf(pvc, now),
      s(spec.volumeMode) || 'Filesystem',
    ];
  },
};

export const persistentvolumes: Printer = {
  columns: [
    NAME,
    col('Capacity', 'capacity is the description of the persistent volume\'s resources and capacity.'),
    col('Access Modes', 'accessModes contains all ways the volume can be mounted.'),
    col('Reclaim Policy', 'persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim.'),
    col('Status', 'phase indicates if a volume is available, bound to a claim, or released by a claim.'),
    col('Claim', 'claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim.'),
    col('StorageClass', 'storageClassName is the name of StorageClass to which this persistent volume belongs.'),
    col('Reason', 'reason is a brief CamelCase string that describes any failure.'),
    AGE,
    col('VolumeMode', 'volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state.', { priority: 1 }),
  ],
  cells(pv, now) {
    const spec = o(pv.spec);
    const status = o(pv.status);
    const claim = o(spec.claimRef);
    return [
      nameOf(pv),
      s(o(spec.capacity).storage),
      accessModes(spec.accessModes),
      s(spec.persistentVolumeReclaimPolicy),
      s(status.phase),
      s(claim.name) ? `${s(claim.namespace)}/${s(claim.name)}` : '',
      s(spec.storageClassName),
      s(status.reason),
      ageOf(pv, now),
      s(spec.volumeMode) || 'Filesystem',
    ];
  },
};

export const storageclasses: Printer = {
  columns: [
    NAME,
    col('Provisioner', 'provisioner indicates the type of the provisioner.'),
    col('ReclaimPolicy', 'reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class.'),
    col('VolumeBindingMode', 'volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.'),
    col('AllowVolumeExpansion', 'allowVolumeExpansion shows whether the storage class allow volume expand.'),
    AGE,
  ],
  cells(sc, now) {
    const isDefault = s(o(meta(sc).annotations)['storageclass.kubernetes.io/is-default-class']) === 'true';
    return [
      isDefault ? `${nameOf(sc)} (default)` : nameOf(sc),
      s(sc.provisioner),
      s(sc.reclaimPolicy) || 'Delete',
      s(sc.volumeBindingMode) || 'Immediate',
      sc.allowVolumeExpansion === true,
      ageOf(sc, now),
    ];
  },
};

