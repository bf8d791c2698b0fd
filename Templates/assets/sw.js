// The catalog's service worker (reader-snapshot writes this file as sw.js, at the top of the
// catalog, where a worker's scope must start). It keeps the catalog in the browser and answers
// from it, online or not:
// - at the first visit, the shell (the lists, assets, the search's and the lookup's index, the
//   lists' thumbnails), then in the background every book page and its cover, as offline.json
//   lists them (for big libraries, pages as they are visited, or all when the reader asks);
// - after the next night's publish, only the files whose version changed are fetched, into a new
//   copy, and the unchanged ones are copied from the old; the new copy is used whole from the
//   next visit (a worker that starts afresh), never mixed with the old one.
"use strict";

const PREFIX = "reader-snapshot:";
const META = PREFIX + "meta";
const SCOPE = self.registration.scope;
const SIZES = [64, 128, 192, 384];

// What is kept, in the meta cache as JSON: the copy in use and its snapshot, the versions of its
// files, whether every page is wanted, and a copy being made.
async function readState() {
  const meta = await caches.open(META);
  const response = await meta.match(SCOPE + "state.json");
  return response ? response.json() : { active: null, id: null, snapshot: null, versions: {}, books: 0, whole: false, everything: false, ready: null };
}

async function writeState(state) {
  const meta = await caches.open(META);
  await meta.put(SCOPE + "state.json", new Response(JSON.stringify(state), { headers: { "Content-Type": "application/json" } }));
}

// A copy made completely while the reader was away is the one used from now on.
async function switchIfReady() {
  const state = await readState();
  if (!state.ready) return state;
  const old = state.active;
  Object.assign(state, state.ready, { ready: null });
  await writeState(state);
  if (old && old !== state.active) await caches.delete(old);
  return state;
}

let started = switchIfReady();
let updating = null;

self.addEventListener("install", (event) => {
  self.skipWaiting();
  event.waitUntil(update());
});

self.addEventListener("activate", (event) => {
  event.waitUntil(started.then(() => self.clients.claim()));
});

self.addEventListener("message", (event) => {
  const reply = (message) => event.source && event.source.postMessage(message);
  const type = event.data && event.data.type;
  if (type === "check") event.waitUntil(update().then(status).then(reply, () => status().then(reply)));
  else if (type === "status") event.waitUntil(status().then(reply));
  else if (type === "everything") event.waitUntil(readState().then((state) => { state.everything = true; return writeState(state); }).then(update).then(status).then(reply));
  else if (type === "free") event.waitUntil(free().then(() => reply({ type: "freed" })).then(() => self.registration.unregister()));
});

async function status() {
  const state = await readState();
  return { type: "status", id: state.id, snapshot: state.snapshot, books: state.books, total: state.total || 0, whole: state.whole,
           everything: state.everything, keeping: Boolean(updating), ready: state.ready ? state.ready.snapshot : null,
           readyID: state.ready ? state.ready.id : null };
}

// A host that stops answering must not hold the update up for good: the next page asks again.
// Past the browser's own cache: a host that says "not modified" by the second of a file's date
// would hand back a file rewritten within that second as it was.
function fetchWithin(url, seconds) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), seconds * 1000);
  return fetch(url, { cache: "reload", signal: controller.signal }).finally(() => clearTimeout(timer));
}

// Everything kept, gone, and the worker with it: pages come from the host again.
async function free() {
  started = Promise.resolve({ active: null, id: null, snapshot: null, versions: {}, books: 0, whole: false, everything: false, ready: null });
  if (updating) await updating.catch(() => {});
  for (const name of await caches.keys()) if (name.startsWith(PREFIX)) await caches.delete(name);
}

// One update at a time: the list (a 304 when nothing was published since), then what changed in
// the shell, then in the pages. Every page asks for one as it opens.
function update() {
  if (!updating) updating = run().finally(() => { updating = null; });
  return updating;
}

async function run() {
  // The copy's id first (a few bytes, at every page opened); the whole list only when it changed,
  // or while the pages are still being kept.
  await started;
  const known = await readState();
  const version = await fetchWithin(SCOPE + "offline-id.json", 20);
  if (!version.ok) throw new Error("offline-id.json: " + version.status);
  const id = (await version.json()).id;
  const keeping = (known.whole || known.everything) && known.books < known.total;
  if (id && (id === (known.ready && known.ready.id) || (id === known.id && !keeping))) return;
  const response = await fetchWithin(SCOPE + "offline.json", 60);
  if (!response.ok) throw new Error("offline.json: " + response.status);
  const list = await response.json();
  let state = await readState();
  const fresh = state.id !== list.id;
  // Made already, waiting for the next visit.
  if (fresh && state.ready && state.ready.id === list.id) return;
  const name = fresh ? PREFIX + list.id : state.active;
  const target = await caches.open(name);
  const source = fresh && state.active ? await caches.open(state.active) : null;
  const versions = fresh ? {} : Object.assign({}, state.versions);
  const countBooks = () => Object.keys(versions).filter((path) => path.startsWith("books/")).length;
  const everything = list.whole || state.everything;

  // A file of the old copy whose version is the same is copied; another is fetched. One that
  // cannot be had now is left for the next update.
  async function keep(path, version) {
    if (versions[path] === version) return true;
    try {
      let kept = source && state.versions[path] === version ? await source.match(SCOPE + path) : undefined;
      if (!kept) {
        const fetched = await fetchWithin(SCOPE + path, 60);
        if (!fetched.ok) return false;
        kept = fetched;
      }
      await target.put(SCOPE + path, kept);
      versions[path] = version;
      return true;
    } catch (error) {
      return false;
    }
  }

  for (const [path, version] of list.shell) await keep(path, version);
  const next = () => ({ active: name, id: list.id, snapshot: list.snapshot, versions, books: countBooks(), total: list.books, whole: list.whole,
                        everything: state.everything, ready: null });
  if (!state.active) {
    // The first visit: the shell is what is used at once; the pages join it as they come.
    state = next();
    await writeState(state);
    started = Promise.resolve(state);
  } else if (fresh) {
    // Made beside the copy in use, whole, and used from the next visit on.
    if (everything) for (const [path, version, cover] of list.pages) if (await keep(path, version) && cover) await keep(cover, "");
    const now = await readState();
    if (now.active !== state.active) return; // freed meanwhile
    now.ready = next();
    await writeState(now);
    return;
  }
  if (!everything) return;
  let done = 0, added = 0;
  for (const [path, version, cover] of list.pages) {
    const before = versions[path];
    const kept = await keep(path, version);
    if (kept && cover) await keep(cover, "");
    if (versions[path] !== before) added++;
    if (++done === list.pages.length || (added && done % 100 === 0)) {
      if (!added) break;
      const now = await readState();
      if (now.active !== name) return; // freed meanwhile
      Object.assign(now, { versions, books: countBooks() });
      await writeState(now);
    }
  }
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET" || !request.url.startsWith(SCOPE)) return;
  const path = request.url.slice(SCOPE.length).split("#")[0].split("?")[0];
  if (path === "offline.json" || path === "offline-id.json" || path === "sw.js") return;
  event.respondWith(answer(request, path === "" ? "index.html" : path));
});

async function answer(request, path) {
  const state = await started;
  const cache = state.active ? await caches.open(state.active) : null;
  if (cache) {
    const hit = await cache.match(SCOPE + path);
    if (hit) return hit;
    // A cover's other size, when the one asked for is not kept (a screen of another density).
    const cover = /^covers\/([0-9a-f]+)-(\d+)\.([a-z]+)$/.exec(path);
    if (cover) {
      for (const size of SIZES) {
        const other = await cache.match(SCOPE + "covers/" + cover[1] + "-" + size + "." + cover[3]);
        if (other) return other;
      }
    }
  }
  try {
    const response = await fetch(request);
    // Above the size kept whole, pages are kept as they are visited.
    if (cache && response.ok && response.type === "basic" && /\.html$|^covers\//.test(path)) {
      const copy = response.clone();
      cache.put(SCOPE + path, copy).then(async () => {
        if (!path.startsWith("books/")) return;
        const now = await readState();
        if (now.active !== state.active || now.versions[path]) return;
        now.versions[path] = "visited";
        now.books = Object.keys(now.versions).filter((kept) => kept.startsWith("books/")).length;
        await writeState(now);
      });
    }
    return response;
  } catch (error) {
    return new Response("This page is not kept for offline use.", { status: 503, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  }
}
