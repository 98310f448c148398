/**
 * The reference's fixtures.activityIds: before 0.6.8 (POST /v0/activities served) it names activities the listing
 * holds, its newest, a middle and its oldest; from 0.6.8 on, where the endpoint is gone, it names none.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type ReferenceServer } from '../../reference/index.js';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

async function listActivities(scan: string, body: unknown): Promise<{ status: number; body: Json }> {
  const r = await fetch(`${scan}/v0/activities`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: r.status, body: await r.json().catch(() => ({})) };
}

describe('reference fixtures.activityIds', () => {
  let old: ReferenceServer;
  let current: ReferenceServer;
  beforeAll(async () => {
    old = await startReference({ port: 0, scanVersion: '0.6.7' });
    current = await startReference({ port: 0 });
  });
  afterAll(async () => {
    await old?.close();
    await current?.close();
  });

  it('names the newest, a middle and the oldest activity of a 0.6.7 scan, each listed', async () => {
    const ids = (old.targetConfig().scan.fixtures as Json).activityIds as string[];
    expect(ids).toHaveLength(3);
    const all = await listActivities(old.urls.scan, { page_size: 1000 });
    expect(all.status).toBe(200);
    const listed = (all.body.activities as Json[]).map((a) => a.event_id);
    expect(ids[0]).toBe(listed[0]);
    expect(ids[2]).toBe(listed[listed.length - 1]);
    for (const id of ids) expect(listed).toContain(id);
  });

  it('names none where POST /v0/activities is not served', async () => {
    expect((current.targetConfig().scan.fixtures as Json).activityIds).toBeUndefined();
    expect((await listActivities(current.urls.scan, { page_size: 10 })).status).toBe(404);
  });

  it('lists without the oldest under the planted fault scan-activities-oldest-hidden', async () => {
    const faulty = await startReference({ port: 0, scanVersion: '0.6.7', faults: ['scan-activities-oldest-hidden'] });
    try {
      const ids = (faulty.targetConfig().scan.fixtures as Json).activityIds as string[];
      const listed = ((await listActivities(faulty.urls.scan, { page_size: 1000 })).body.activities as Json[]).map((a) => a.event_id);
      expect(listed).not.toContain(ids[2]);
      expect(listed).toContain(ids[0]);
    } finally {
      await faulty.close();
    }
  });
});
