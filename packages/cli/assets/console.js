// fate ui: reloads the part of the page marked data-live every refresh period, while the page
// is visible. The server renders (and escapes) that HTML; this script only swaps it in.
const live = document.getElementById('live');
const state = document.getElementById('live-state');
const period = Number(document.body.dataset.refreshMs) || 2000;

// Not while a pointer is pressed: a swap between the press and the release would put a new
// link under the release, and the click on the old one (a list's "next") would be lost.
let pressed = false;
addEventListener('pointerdown', () => (pressed = true), true);
for (const end of ['pointerup', 'pointercancel', 'dragend', 'blur']) {
  addEventListener(end, () => (pressed = false), true);
}

async function refresh() {
  if (!live || document.hidden) return;
  try {
    const res = await fetch(live.dataset.live, { credentials: 'same-origin', cache: 'no-store' });
    if (res.status === 401) {
      location.reload();
      return;
    }
    if (!res.ok) throw new Error(`${res.status}`);
    const html = await res.text();
    const body = document.body.dataset;
    body.refreshes = String(Number(body.refreshes ?? 0) + 1);
    if (pressed) return;
    live.innerHTML = html;
    if (state) state.textContent = `· updated ${new Date().toLocaleTimeString()}`;
    body.updated = String(Date.now());
  } catch (err) {
    if (state) state.textContent = `· not updating (${err.message})`;
  }
}

if (live) {
  let busy = false;
  setInterval(async () => {
    if (busy) return;
    busy = true;
    try {
      await refresh();
    } finally {
      busy = false;
    }
  }, period);
}
