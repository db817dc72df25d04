/**
 * cognito-local's data store, saved behind its writes.
 *
 * Why: cognito-local (5.3.0) keeps each user pool in one StormDB JSON file and rewrites the whole file, indented, on
 * every `set` and `delete`. Each AdminCreateUser therefore costs time in proportion to the pool: with thousands of
 * users the stand-in fell from ~27 to ~6 creations a second, far below the rate the CSV import is configured for.
 * Here every write still changes the in-memory StormDB value at once (so the next read, in this process, sees it),
 * but the file is saved coalesced: one save at a time, at most one every SAVE_INTERVAL_MS (longer when saving gets
 * slow), and writes made during a save are saved once after it. `flush()` saves what is pending; the stand-in
 * process calls it before it exits, so a clean stop keeps everything. A killed process (SIGKILL) loses at most the
 * last interval's writes, which a stand-in may.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { performance } from "node:perf_hooks";
import type { Ctx } from "./cognito-local";

const require = createRequire(import.meta.url);
const { StormDBDataStoreFactory } = require("cognito-local/lib/services/dataStore/stormDb") as {
  StormDBDataStoreFactory: new (directory: string) => LocalDataStoreFactory;
};

/** The shortest time between two saves of one file. */
const SAVE_INTERVAL_MS = 250;
/** Saving may take at most 1/SAVE_SHARE of the time: a big pool is saved less often than every interval. */
const SAVE_SHARE = 5;

/** cognito-local's StormDB: the in-memory value, and `save()` which serializes all of it to the file. */
interface StormDB {
  save(): Promise<void> | null;
}

/** A store as cognito-local's StormDBDataStoreFactory makes it; its get/set/delete work on `db`. */
interface StormDBDataStore {
  db: StormDB;
}

interface LocalDataStoreFactory {
  create(ctx: Ctx, id: string, defaults: object): Promise<StormDBDataStore>;
}

interface Logger {
  error(details: object, message: string): void;
}

/** Saves one file behind the writes: at most one save in flight, the writes made meanwhile saved once after it. */
class CoalescedSaver {
  private dirty = false;
  private timer: NodeJS.Timeout | undefined;
  private saving: Promise<void> | undefined;
  private lastSaveMs = 0;

  constructor(
    private readonly save: () => Promise<void>,
    private readonly logger: Logger,
  ) {}

  request(): void {
    this.dirty = true;
    this.schedule();
  }

  /** Saves what is pending now, after the save in flight; a failure reaches the caller. */
  async flush(): Promise<void> {
    while (this.saving) await this.saving.catch(() => {});
    this.cancelTimer();
    if (this.dirty) await this.saveNow();
  }

  private schedule(): void {
    if (this.timer || this.saving) return; // the save in flight schedules the next one when it ends
    const delay = Math.max(SAVE_INTERVAL_MS, this.lastSaveMs * SAVE_SHARE);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.saveNow().catch((error: unknown) => this.logger.error({ error }, "Saving the stand-in's data failed"));
    }, delay);
  }

  private cancelTimer(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async saveNow(): Promise<void> {
    this.dirty = false;
    const started = performance.now();
    this.saving = this.save();
    try {
      await this.saving;
    } catch (error) {
      this.dirty = true; // tried again at the next save
      throw error;
    } finally {
      this.saving = undefined;
      this.lastSaveMs = performance.now() - started;
      if (this.dirty) this.schedule();
    }
  }
}

/** A DataStoreFactory for cognito-local whose stores save behind their writes (see the top of this file). */
export class WriteBehindDataStoreFactory {
  private readonly inner: LocalDataStoreFactory;
  private readonly savers: CoalescedSaver[] = [];

  constructor(
    private readonly directory: string,
    private readonly logger: Logger,
  ) {
    this.inner = new StormDBDataStoreFactory(directory);
  }

  /** cognito-local's own store (its first save, which creates the file, happens now), its later saves deferred. */
  async create(ctx: Ctx, id: string, defaults: object): Promise<StormDBDataStore> {
    const store = await this.inner.create(ctx, id, defaults);
    const file = path.join(this.directory, `${id}.json`);
    const saveFile = store.db.save.bind(store.db);
    // DeleteUserPool removes the file: a save still pending must not bring the pool back.
    const saver = new CoalescedSaver(async () => void (existsSync(file) ? await saveFile() : undefined), this.logger);
    this.savers.push(saver);
    store.db.save = () => {
      saver.request();
      return Promise.resolve();
    };
    return store;
  }

  /** Saves every store's pending writes. */
  async flush(): Promise<void> {
    await Promise.all(this.savers.map((saver) => saver.flush()));
  }
}
