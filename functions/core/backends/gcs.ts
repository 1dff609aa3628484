import type { GcsBackend } from '../config/types';
import { notImplemented } from '../errors';
import type { Forward } from '../http';
import type { ListPage, ObjectStore, StoreDeps } from './store';

export class GcsStore implements ObjectStore {
  constructor(
    readonly backend: GcsBackend,
    readonly deps: StoreDeps,
  ) {}

  async forwardObject(): Promise<Forward> {
    throw notImplemented('GCS');
  }

  async list(): Promise<ListPage> {
    throw notImplemented('GCS');
  }
}
