/**
 * `proxy --record`: a session through the proxy in front of a simulator, recorded, then served from the
 * recording: the same reads, by the same URLs (the recording keeps the IDs of Audiences, their member Minds
 * and Formations), give the same fields.
 */
import { expect, it } from "vitest";
import { createSimulator } from "../../src/simulator.ts";
import { configOf } from "../lib/planning/config-of.ts";
import { capture } from "../proxy/capture.ts";
import { serveProxy } from "../proxy/host.ts";
import { brokenServer } from "./harness.ts";

type Json = Record<string, any>;

async function get(
  base: string,
  path: string,
  key: string,
  via: (r: Request) => Promise<Response> = fetch,
): Promise<Json> {
  const res = await via(new Request(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } }));
  expect(res.status, path).toBe(200);
  return (await res.json()) as Json;
}

/** What the format states of an Audience, a member, a collaborator and a Formation. */
const audienceFields = (d: Json) => ({
  name: d.name,
  isPublic: d.isPublic,
  isSharedWithTeam: d.isSharedWithTeam,
  isLinkSharingEnabled: d.isLinkSharingEnabled,
  currentMemberRole: d.currentMemberRole,
  mindCount: d.mindCount,
  minds: (d.minds as Json[]).map((m) => ({
    id: m.id,
    name: m.name,
    headline: m.headline,
    bio: m.bio,
    attributes: m.attributes,
  })),
});
const collaboratorFields = (c: Json) => ({ name: c.name, email: c.email, role: c.role });
const formationFields = (f: Json) => ({ id: f.id, name: f.name, status: f.status, hypothesis: f.hypothesis });

it("records a session's world and serves it back, field by field", async () => {
  const server = await brokenServer(null);
  const proxy = await serveProxy({ upstream: server.info.baseUrl, record: true, port: 0, host: "127.0.0.1" });
  try {
    const key = server.info.keys.owner as string;
    const main = server.info.audiences.main as string;
    const formation = server.info.formations.mainReady?.id as string;
    await get(proxy.url, "/api/v1/auth/me", key);
    await get(proxy.url, "/api/v1/api-keys", key);
    const seen = {
      audience: audienceFields((await get(proxy.url, `/api/v1/audiences/${main}`, key)).data),
      collaborators: (await get(proxy.url, `/api/v1/audiences/${main}/collaborators`, key)).data.map(
        collaboratorFields,
      ),
      formation: formationFields(
        (await get(proxy.url, `/api/v1/audiences/${main}/formations/${formation}`, key)).data,
      ),
    };
    const document = proxy.recorder?.document() ?? {};
    expect(JSON.stringify(document)).not.toContain(key);

    const replayed = createSimulator({ scenario: document, clock: "manual" });
    await replayed.ready;
    const m = replayed.manifest();
    const owner = m.users.user1?.apiKey as string;
    // The URLs the session used name the same records offline.
    expect([m.audiences.audience1?.id, m.formations.formation1?.id]).toEqual([main, formation]);
    const call = async (path: string) =>
      (
        await replayed.fetch(
          new Request(`http://sim${path}`, { headers: { authorization: `Bearer ${owner}` } }),
        )
      ).json();
    expect(audienceFields((await call(`/api/v1/audiences/${main}`)).data)).toEqual(seen.audience);
    expect((await call(`/api/v1/audiences/${main}/collaborators`)).data.map(collaboratorFields)).toEqual(
      seen.collaborators,
    );
    expect(formationFields((await call(`/api/v1/audiences/${main}/formations/${formation}`)).data)).toEqual(
      seen.formation,
    );
  } finally {
    await proxy.close();
    await server.close();
  }
}, 60_000);

it("captures a deployment's world through the API with a kit config, and serves it back", async () => {
  const server = await brokenServer(null);
  try {
    const manifest = server.sim.manifest();
    const config = configOf(manifest, server.info.baseUrl) as unknown as Parameters<typeof capture>[0];
    const document = (await capture(config)).document();
    expect(JSON.stringify(document)).not.toContain(manifest.users.owner?.apiKey as string);
    const replayed = createSimulator({ scenario: document, clock: "manual" });
    await replayed.ready;
    // The owner read the main Audience first: its name and members come back, and it is the owner's again.
    const main = manifest.audiences.main?.id as string;
    const original = await get(
      server.info.baseUrl,
      `/api/v1/audiences/${main}`,
      manifest.users.owner?.apiKey as string,
    );
    const m = replayed.manifest();
    // Each user is called by the role the config gives their key.
    expect(Object.keys(m.users).sort()).toEqual(Object.keys(manifest.users).sort());
    const owner = m.users.owner?.apiKey as string;
    // The publisher's public Audience is the publisher's, though the owner reads it first.
    const publicId = manifest.audiences.public?.id as string;
    const publisherAudience =
      document.audiences?.[
        Object.keys(document.audiences ?? {}).find((h) => document.audiences?.[h]?.id === publicId) ?? ""
      ];
    expect(publisherAudience?.owner).toBe("publisher");
    // Read by the deployment's own ID: the capture keeps it.
    const same = await get("http://sim", `/api/v1/audiences/${main}`, owner, replayed.fetch);
    expect(audienceFields(same.data)).toEqual(audienceFields(original.data));
  } finally {
    await server.close();
  }
}, 120_000);
