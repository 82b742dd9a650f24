// Paced play on the page: the server sends each move as its own event, then the states; the
// page plays them in the order they came (a discard slides into its river, a claim, kong or
// win flashes its word), one after the other. A reload or reconnect gets the present state.
// At the instant pace with one person the moves since the last state come inside the state
// that follows them (its "events", docs/server.md): they are played first, as if each had
// come on its own.
"use strict";

const PLAY = { queue: [], busy: false, played: 0, arrived: [], catchingUp: false, mine: 0, hurried: 0, onCaughtUp: null };

// A connection again after a drop (?since=): the moves missed come first, each its own event,
// then the state. They are played without the animations (one at a time they took 5-10 s of
// a 20 s turn on a phone, over a table half out of date), and those of this page's own seat
// are counted (in the hand the page had): the first state says whether the stand-in (托管) made
// them, and onCaughtUp(n) may say so (n null: the hand changed meanwhile, not counted).
function catchUp() { PLAY.catchingUp = true; PLAY.mine = 0; }

function sleep(ms) { return new Promise((r) => setTimeout(r, ms)); }

// Messages are played in order; ``onState`` applies a state (table.js).
function enqueue(msg, onState) {
  if (msg.type === "state" && msg.events && msg.events.length) {
    for (const ev of msg.events) enqueue({ type: "event", hand: msg.hand, seat: ev.seat, kind: ev.kind, tile: ev.tile }, onState);
  }
  if (msg.type === "event") PLAY.arrived.push([performance.now(), msg.kind]);  // when each event came (tests read it)
  PLAY.queue.push([msg, onState]);
  pump();
}

async function pump() {
  if (PLAY.busy) return;
  PLAY.busy = true;
  try {
    while (PLAY.queue.length) {
      const [msg, onState] = PLAY.queue.shift();
      // far behind (a tab in the background): catch up without the animations
      const hurry = PLAY.catchingUp || PLAY.queue.length > 12 || document.hidden;
      // one message that throws (a drawing bug) must not stall the ones queued behind it:
      // with nobody else to move, the page would wait for ever for a state it already has
      try {
        if (msg.type === "event") {
          if (PLAY.catchingUp && VIEW && msg.seat === VIEW.me && msg.hand === VIEW.hand) PLAY.mine += 1;
          if (hurry) PLAY.hurried += 1;
          await playEvent(msg, hurry);
        } else {
          const caught = PLAY.catchingUp && msg.type === "state";
          const n = caught && VIEW && VIEW.hand === msg.hand ? PLAY.mine : null;
          if (caught) PLAY.catchingUp = false;
          onState(msg);
          if (caught && msg.away && PLAY.onCaughtUp) PLAY.onCaughtUp(n);
        }
      } catch (e) {
        console.error(e);
      }
    }
  } finally {
    PLAY.busy = false;
  }
}

const CALLS = { chow: "吃", pong: "碰", exposed_kong: "杠", added_kong: "杠", concealed_kong: "杠", win: "胡", declare_draw: "和局" };

function countAnimation(kind) {
  PLAY.played += 1;
  document.body.dataset.animations = String(PLAY.played);
  document.body.dataset.lastAnimation = kind;
}

// One move: shown on the table we have, before the state that follows it arrives.
async function playEvent(ev, hurry) {
  const v = VIEW;
  if (!v || v.hand !== ev.hand || v.hand_end) return;
  if (ev.kind === "discard") {
    const sv = v.seats[ev.seat];
    sv.discards = sv.discards.concat([ev.tile]);
    if (ev.seat === v.me) {
      const i = v.tiles.lastIndexOf(ev.tile);
      if (i >= 0) v.tiles = v.tiles.slice(0, i).concat(v.tiles.slice(i + 1));
      v.choices = [];
      drawn = null;
    }
    sv.concealed = Math.max(0, sv.concealed - 1);
    lastDiscardSeat = ev.seat;
    v.current = ev.seat;
    render();
    if (window.SOUND) SOUND.play("clack");
    const river = document.querySelector(`[data-river="${ev.seat}"]`);
    const tile = river && river.lastElementChild;
    if (tile) {
      const pos = (ev.seat - (v.me === null ? 0 : v.me) + 4) % 4;
      tile.style.setProperty("--from", ["3rem", "0", "-3rem", "0"][pos]);
      tile.classList.add("slide");
    }
    countAnimation("discard");
    if (!hurry) await sleep(350);
    return;
  }
  const word = CALLS[ev.kind];
  if (!word) return;
  const el = h("div", { class: "call", "data-testid": "call", text: word });
  document.body.append(el);
  setTimeout(() => el.remove(), 900);
  if (window.SOUND) SOUND.call(ev.kind);
  countAnimation(ev.kind);
  if (!hurry) await sleep(ev.kind === "win" ? 900 : 600);
}
