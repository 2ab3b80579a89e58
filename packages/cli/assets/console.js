// fate ui: reloads the part of the page marked data-live every refresh period, while the page
// is visible. The server renders (and escapes) that HTML; this script only swaps it in.
const live = document.getElementById('live');
const state = document.getElementById('live-state');
const period = Number(document.body.dataset.refreshMs) || 2000;

async function refresh() {
  if (!live || document.hidden) return;
  try {
    const res = await fetch(live.dataset.live, { credentials: 'same-origin', cache: 'no-store' });
    if (res.status === 401) {
      location.reload();
      return;
    }
    if (!res.ok) throw new Error(`${res.status}`);
    live.innerHTML = await res.text();
    if (state) state.textContent = `· updated ${new Date().toLocaleTimeString()}`;
    document.body.dataset.updated = String(Date.now());
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
