// The live table: WebSocket to the server, which sends this seat's view after every change.
"use strict";

const CODE = location.pathname.split("/").pop();
let VIEW = null;
let WS = null;
let deadline = null;
let lastDiscardSeat = null;
let sentNext = -1;
let retry = 500;
let seen = null;  // [hand, step] of the latest event or state that came (for ?since= on a reconnect)
let drawn = null;  // the tile this seat just drew, shown apart
let botLevels = null, startLevel = null;  // start early: the levels, and the one chosen
let ROOM = null, MY_PLAYER = null;  // the room as the page last read it, and my player index in it

function send(msg) { if (WS && WS.readyState === 1) WS.send(JSON.stringify(msg)); }
// the state a move was sent for: its buttons go until the next state (a claim answered waits
// out the claim pause, and a second click would only be refused)
let answered = null;
function stateKey(v) { return `${v.hand}:${v.step}:${v.phase}:${v.current}`; }
async function act(action) {
  if (!VIEW || WATCH.on || answered === stateKey(VIEW)) return;
  answered = stateKey(VIEW);
  render();
  // signed by this browser's key once the connection has it (fair.js, MoveSigner); else unsigned
  const ws = WS, hand = VIEW.hand, step = VIEW.step;
  const keyed = ws && ws.keyed ? await ws.keyed : false;
  const sig = keyed ? await MoveSigner.sign(CODE, hand, step, action).catch(() => null) : null;
  if (ws !== WS) { unanswer(); return; }  // reconnected meanwhile: asked again on the new connection
  send(sig ? { type: "act", action, hand, step, sig } : { type: "act", action, hand, step });
}

// The key this page signs its moves with, registered with each new connection before any move.
let keyShown = undefined;  // the key named on the key line (null: none); drawn again in a new language
function drawKeyline() {
  const line = document.getElementById("keyline");
  if (line && keyShown !== undefined) line.textContent = keyShown ? t("moveKey", keyShown) : t("moveKeyNone");
}
onLang(drawKeyline);

function registerKey(ws) {
  ws.keyed = MoveSigner.key(CODE).then((k) => {
    keyShown = k ? k.pub.slice(0, 16) : null;
    drawKeyline();
    document.body.dataset.movekey = k ? k.pub : "none";
    if (!k || ws.readyState !== 1) return false;
    ws.send(JSON.stringify({ type: "key", key: k.pub }));
    return true;
  });
}

function toast(text, ms = 2500) {
  const el = h("div", { class: "toast", text });
  document.body.dataset.toast = text;  // the last one said (a test reads it after it is gone)
  document.body.append(el);
  setTimeout(() => el.remove(), ms);
}

function renderActions() {
  const box = document.getElementById("actions");
  box.replaceChildren();
  const v = VIEW;
  if (!v || v.hand_end || v.match_over) return;
  if (WATCH.on) { WATCH.note(box); return; }  // a spectator: no move of its own
  if (VOTES.paused()) {  // a pause voted for: nothing is asked until it ends
    box.append(h("span", { class: "prompt", "data-testid": "paused-prompt", text: t("pausedShort") }));
    return;
  }
  if (v.away) {
    box.append(h("span", { class: "prompt", text: t("away") }), h("button", { type: "button", onclick: () => send({ type: "back" }), text: t("back") }));
  }
  // a room without a timer: a person away for 3 minutes; the others may let a bot play for them
  for (const s of v.takeover || []) {
    const seat = v.seats.find((x) => x.seat === s);
    box.append(h("button", { type: "button", "data-testid": "takeover", onclick: () => send({ type: "takeover", seat: s }),
      text: t("takeover", seat ? seat.name : String(s + 1)) }));
  }
  const choices = answered === stateKey(v) ? [] : v.choices;
  const claims = choices.filter((c) => c.kind !== "discard");
  const canDiscard = choices.some((c) => c.kind === "discard");
  if (!choices.length) {
    box.append(h("span", { class: "muted", text: t("waitingFor") }));
    return;
  }
  // asked about someone's discard (or added kong) the centre still names whose turn it is: the
  // prompt says what is asked
  const asked = v.phase === "claim" ? t("claimOn", windName(v.current)) : v.phase === "rob" ? t("robOn", windName(v.current))
    : t("yourTurn") + (canDiscard ? " · " + t(TAP_TWICE ? "tapTwiceHint" : "discardHint") : "");
  box.append(h("span", { class: "prompt", "data-testid": "prompt", text: asked }));
  if (deadline !== null) box.append(h("span", { class: "prompt", id: "claimtimer" }));
  if (v.last_discard && !canDiscard) box.append(tileEl(v.last_discard, { size: "sm", last: true }));
  for (const c of claims) {
    box.append(h("button", { type: "button", class: c.kind === "win" ? "win" : "", "data-action": c.action, "data-kind": c.kind,
      onclick: () => act(c.action) }, t(c.kind), c.tiles.map((x) => tileEl(x, { size: "xs" }))));
  }
}

function renderHelp() {
  const box = document.getElementById("helpline");
  box.replaceChildren();
  const help = VIEW && VIEW.help;
  // once the move is sent, the help (the hand before it, its good discards) is stale: it
  // goes until the next state brings the new hand's
  if (!help || answered === stateKey(VIEW)) return;
  const row = h("div", { class: "help", "data-testid": "help" },
    h("span", { text: help.shanten === 0 ? t("ready") : `${t("shantenHead")}: ${help.shanten}` }),
    help.waits.length ? h("span", {}, t("waits"), " ", help.waits.map((w) => h("span", {}, tileEl(w.tile, { size: "sm" }), `×${w.unseen} `))) : null);
  box.append(row);
  if (help.discards && help.discards.length) {
    // on my turn: the sensible discards, the shanten after each and the unseen tiles that
    // would then improve the hand (its waits when ready) — the terminal's "good discards"
    box.append(h("div", { class: "help advice", "data-testid": "advice" }, h("b", { text: t("goodDiscards") }),
      help.discards.map((d) => h("span", { class: "adv", "data-tile": d.tile }, t("discard"), " ", tileEl(d.tile, { size: "sm" }),
        ` → ${d.shanten === 0 ? t("ready") : `${t("shanten")} ${d.shanten}`}, ${t(d.shanten === 0 ? "waitsUnseen" : "improvingUnseen", d.unseen)}`,
        h("span", { class: "imp" }, d.improving.slice(0, 8).map((x) => tileEl(x, { size: "xs" })))))));
  }
}

function renderOverlay() {
  const box = document.getElementById("overlay");
  box.replaceChildren();
  const v = VIEW;
  // (a match dismissed by vote in the middle of a hand is over with no hand_end)
  const shown = !!v && (!!v.hand_end || !!v.match_over);
  document.body.classList.toggle("scoring", shown);  // the bar stays in reach above it (style.css)
  if (!shown) return;
  document.body.style.setProperty("--bar-h", `${document.querySelector(".bar").offsetHeight}px`);
  const panel = h("div", { class: "panel" });
  if (v.match_over) {
    // the end of the match first: why it ended and the standings, then the last hand's score
    panel.append(h("h2", { text: t("matchOver") }), matchEndEl(v.match_end), standingsEl(v.standings),
      h("p", {}, h("a", { href: "/m/" + v.code, text: t("resultPage") })), ...(v.hand_end ? [scoreTableEl(v.hand_end)] : []));
  } else {
    // "Next hand" stays in sight at the top of the panel, however long the score table is
    const btn = h("button", { class: "primary big", type: "button", "data-testid": "next-hand", text: t("nextHand"),
      disabled: sentNext === v.hand, onclick: () => {
        // sent only on an open connection; else the button stays for a click after the reconnect
        if (!WS || WS.readyState !== 1) return;
        sentNext = v.hand; send({ type: "next", hand: v.hand }); btn.disabled = true;
      } });
    // the table's countdown, hidden under the panel: the next hand starts by itself when it ends
    const left = deadline === null || WATCH.on ? null : h("span", { class: "prompt", id: "nexttimer", "data-testid": "next-timer" });
    // once asked for: the people the next hand still waits for (a bot, or someone away, never holds it)
    const waiting = sentNext === v.hand ? v.seats.filter((s) => !s.bot && s.connected && !s.away && s.seat !== v.me
      && !(v.ready || []).includes(s.seat)).map((s) => `${windName(s.seat)} ${s.name}`) : [];
    const held = waiting.length ? h("span", { class: "muted", "data-testid": "next-waiting",
      text: t("nextWaiting", waiting.join(LANG === "zh" ? "、" : ", ")) }) : null;
    panel.append(h("div", { class: "row nextrow" }, WATCH.on ? null : btn, left, held, h("a", { href: "/m/" + v.code, text: t("resultPage") })),
      scoreTableEl(v.hand_end), h("h3", { text: t("standings") }), standingsEl(v.standings));
  }
  box.append(h("div", { class: "overlay" }, panel));
}

function render() {
  if (!VIEW) return;
  document.getElementById("lobbybox").replaceChildren();
  renderBoard(document.getElementById("boardbox"), VIEW, { onDiscard: answered === stateKey(VIEW) || VOTES.paused() || WATCH.on ? null : act, drawn, lastDiscardSeat,
    picked: KEY.picked, onPick: TAP_TWICE ? pick : null });
  renderActions();
  renderHelp();
  renderOverlay();
  SAY.decorate();
  if (VIEW.match_over) {  // nothing left to vote on: the button and any banner go
    document.querySelector("[data-testid=vote]").hidden = true;
    VOTES.draw();
  }
  document.getElementById("helpbox").disabled = !VIEW.help_allowed;
  document.getElementById("commit").textContent = `${t("commitment")} #${VIEW.hand + 1}: ${VIEW.commitment}`;
  WATCH.render();
  tick();
}

function tick() {
  const el = document.getElementById("timer");
  if (!el) return;
  if (deadline === null) { el.textContent = ""; return; }
  const left = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
  el.textContent = t("secondsLeft", left);
  el.classList.toggle("low", left <= 5);
  const claim = document.getElementById("claimtimer");
  if (claim) claim.textContent = t("secondsLeft", left);
  const next = document.getElementById("nexttimer");
  if (next) next.textContent = t("nextIn", left);
}
setInterval(tick, 250);

function unanswer() {
  if (answered === null) return;
  answered = null;
  if (VIEW) render();
}

// The database could not be written: the table is paused at its last stored move and
// retries by itself (docs/server.md, "Faults"); the banner stays until it says it is back.
function storageBanner(lost) {
  let el = document.getElementById("storage");
  if (!lost) { if (el) el.remove(); return; }
  if (!el) {
    el = h("div", { id: "storage", class: "storage", role: "status", "data-testid": "storage-lost", text: t("storageLost") });
    document.body.append(el);
  }
}

// Players of this room connected from one network address (the server never says which):
// a banner under the bar, until closed; a new group shows it again.
// The room's owner may remove one of a group (not himself): a bot plays that seat to the end.
function sameAddress(groups, players) {
  let el = document.getElementById("sameaddr");
  if (el) el.remove();
  const remove = (g, i) => (ROOM && ROOM.owner && players && players[i] ? players[i].map((p, j) => p === MY_PLAYER ? null
    : h("button", { type: "button", class: "removeseat", "data-testid": "remove-seat", "data-player": p,
      text: t("removeSeat", g[j]), onclick: () => { if (confirm(t("removeSure", g[j]))) send({ type: "remove", player: p }); } }))
    : []);
  el = h("div", { id: "sameaddr", class: "sameaddr", role: "alert", "data-testid": "same-address" },
    groups.map((g, i) => h("div", {}, h("span", { text: t("sameAddress", g.join(LANG === "zh" ? "、" : ", ")) }), " ", remove(g, i))),
    h("button", { type: "button", class: "close", "aria-label": t("close"), text: "×", onclick: () => el.remove() }));
  document.querySelector(".bar").after(el);
}

// A state from the server: the table as it is now (after the events before it were played).
// The host removed this page's person (same address): no state still queued to be played
// (anim.js) may draw the table again over the reason (a CI run saw the reason go a moment
// after it showed: a queued state set VIEW again and render() cleared the room's card).
let removedHere = false;

function applyState(msg) {
  if (removedHere) return;
  const before = VIEW;
  if (!before || before.hand !== msg.hand || before.step !== msg.step) KEY.picked = null;
  // (a pass is no step: the phase and whose turn it is tell the states of one step apart)
  const shown = `${msg.hand}:${msg.step}:${msg.phase}:${msg.current}:${msg.hand_end ? "end" : msg.choices.length}`;
  // The table asks again at the state this page answered, with other choices than the page
  // answered, or after another state came between: the answer did not take (lost on the way,
  // or made on a state the table had moved from). Its buttons come back, else the page waited
  // for ever with no button to press (a CI run: 60 s at hand 4, step 1, its discard shown
  // as sent and nothing coming).
  if (answered === stateKey(msg) && msg.choices.length && document.body.dataset.state !== shown) answered = null;
  VIEW = msg;
  drawn = msg.drawn;  // the server says which tile I just drew (my own view only)
  document.body.dataset.state = shown;
  deadline = msg.deadline_ms === null ? null : Date.now() + msg.deadline_ms;
  // the newest discard is marked where the server says it lies (a reload too; none once claimed)
  lastDiscardSeat = msg.newest_discard === undefined ? null : msg.newest_discard;
  render();
  if (window.SOUND) SOUND.onState(before, msg);
}

function connect() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  // ?contribute=1: this page sends its own randomness to every wall (fair.js, docs/fairness.md)
  // ?since=H:S: the last event or state this page had; a reconnect is told the moves it missed
  const since = seen ? `&since=${seen[0]}:${seen[1]}` : "";
  if (since && !WATCH.on) catchUp();  // the moves missed come at once: played without the animations
  // ?watch=1: a spectator (watch.js): no randomness, no key, no move
  WS = new WebSocket(`${proto}://${location.host}/ws/${CODE}?${WATCH.on ? "watch=1" : "contribute=1" + since}`);
  WS.onopen = () => {
    retry = 500;
    if (WATCH.on) return;
    registerKey(WS);
    document.querySelector("[data-testid=say]").hidden = false;
    document.querySelector("[data-testid=vote]").hidden = !!(VIEW && VIEW.match_over);
    VOTES.reset();  // the table tells the open vote and the pause again
    // a "next" sent as the last connection dropped may never have arrived: say it again (the
    // table takes a repeated "next" for a hand that is over as the same answer)
    if (sentNext >= 0 && VIEW && VIEW.hand_end && VIEW.hand === sentNext) send({ type: "next", hand: sentNext });
    // a move clicked as the last connection dropped was never sent (send() drops it): its
    // buttons come back, else a state that did not change would show none for ever
    unanswer();
    storageBanner(false);  // a fresh connection: the table says so again if it is still paused
    if (document.getElementById("helpbox").checked) send({ type: "help", on: true });
  };
  WS.onmessage = (e) => {
    const msg = JSON.parse(e.data);
    // A move refused (the database away, or any error) was not made: its buttons come back,
    // so it can be sent again once the table resumes (the state that follows may be the same).
    if (msg.type === "storage") { storageBanner(!msg.ok); unanswer(); return; }
    if (msg.type === "error" && msg.code === "storage_unavailable") { storageBanner(true); unanswer(); return; }
    if (msg.type === "error") {
      // a refused watch: the close that follows says why, in the page's language (WATCH.stop)
      if (WATCH.on && "watchRefused_" + msg.code in I18N.en) return;
      toast(VOTES.errorText(msg) || msg.message); unanswer(); return;
    }
    if (msg.type === "fair") { FairPage.onMessage(msg, send, CODE); return; }
    if (msg.type === "said") { SAY.onSaid(msg); return; }
    if (msg.type === "chatted") { SAY.onChatted(msg); return; }
    if (msg.type === "vote_state") { VOTES.onVote(msg); return; }
    if (msg.type === "paused") { VOTES.onPaused(msg, toast); if (VIEW) render(); return; }
    if (msg.type === "same_address") { sameAddress(msg.groups, msg.players); return; }
    if (msg.type === "removed") {
      toast(t("seatRemoved", msg.name));
      const el = document.getElementById("sameaddr");
      if (el) el.remove();
      return;
    }
    if (msg.type === "watchers") { WATCH.list(msg.names); return; }
    if (msg.type === "event" || msg.type === "state") {
      if (!seen || msg.hand > seen[0] || (msg.hand === seen[0] && msg.step > seen[1])) seen = [msg.hand, msg.step];
      enqueue(msg, applyState);
    }
  };
  // Close codes (caishen/server/conns.py): 1008 not a player here, 4002 signed out: the room's
  // page; 4001 the seat was opened in more windows than allowed, this the oldest: ask first;
  // 4000 this page fell behind: reconnect at once (the present state follows); others retry.
  WS.onclose = (e) => {
    if (e.code === 1008 || e.code === 4002 || e.code === 4003) { if (WATCH.on) WATCH.stop(e.reason); showLobby(); return; }
    if (e.code === 4001) {
      const again = h("button", { text: t("useHere") });
      again.onclick = () => { box.remove(); connect(); };
      const box = h("div", { class: "toast", "data-testid": "elsewhere" }, t("openElsewhere") + " ", again);
      document.body.append(box);
      return;
    }
    setTimeout(connect, e.code === 4000 ? 0 : retry);
    retry = Math.min(retry * 2, 8000);
  };
}

// Before the match: the seats, the link to share, joining, starting.
async function showLobby() {
  lobbyCheck++;  // a recheck still pending (below) ends: this draw is newer
  let room;
  try { room = await api(`/api/rooms/${CODE}`); } catch (err) {
    document.getElementById("copy").hidden = true;  // nothing to share
    document.getElementById("lobbybox").replaceChildren(h("section", { class: "card", style: "color:#000;margin:.8rem" },
      h("p", { "data-testid": "no-room", text: t("err_no_room") }), h("p", {}, h("a", { href: "/", text: t("backToLobby") }))));
    return;
  }
  const me = await api("/api/me");
  const seated = room.seats.some((s) => s.mine && !s.removed);
  const removed = room.seats.some((s) => s.mine && s.removed);
  ROOM = room;
  MY_PLAYER = (room.seats.find((s) => s.mine) || {}).player;
  SAY.setChat(room.chat);
  if (room.status === "playing" && seated) { connect(); return; }
  const card = h("section", { class: "card", style: "color:#000;margin:.8rem" });
  card.append(h("h2", { text: `${t("roomCode")} ${room.code}` }), h("p", {}, h("a", { href: room.link, text: room.link })));
  if (room.status === "damaged") {  // its stored moves do not replay (docs/server.md, "Faults")
    card.append(h("p", { class: "damaged", "data-testid": "damaged", text: t("roomDamaged") }),
      h("p", {}, h("a", { href: "/m/" + room.code, text: t("resultPage") })));
  }
  // what everyone who joins agrees to play: the variant, the match, the house rules changed
  card.append(h("p", { "data-testid": "room-rules" }, h("b", { text: t("variant_" + room.variant) }),
    ` · ${t("hands")} ${room.hands ? room.hands : t("toBreak")}` + (room.turn_seconds ? ` · ${t("turnTimer", room.turn_seconds)}` : "")
    + ` · ${t("standIn")}: ${t("standIn_" + room.stand_in)}`
    + (room.spectators ? ` · ${t("spectatorsOn")}` : "") + (room.chat ? ` · ${t("chatOn")}` : "")));
  if (room.club) {  // a club's table: who may sit, and the way to the club (a review: "join which club?")
    card.append(h("p", { "data-testid": "room-club" }, t("clubTable", room.club.name), " ",
      h("a", { href: "/club/" + room.club.code, text: t("clubPageLink") })));
  }
  if (room.rules.length) {
    card.append(h("p", { text: t("houseRules") }), h("ul", { class: "rules" }, room.rules.map((r) => h("li", {},
      h("span", { class: "rid", text: r.rule }), " ", LANG === "zh" ? r.doc_zh : r.doc, ": ",
      h("b", { text: typeof r.value === "boolean" ? t(r.value ? "yes" : "no") : Array.isArray(r.value) ? r.value.join(", ")
        : choiceText(r.value) })))));
  }
  card.append(h("ul", {}, room.seats.map((s) => h("li", { text: !s.name ? t("seatOpen")
    : s.bot ? `${botName(s.name)} (${t("level_" + s.bot)})`
    : `${s.name}${s.mine ? " · " + t("you") : ""}${s.removed ? " · " + t("removedTag") : ""}` }))));
  if (room.status === "over") card.append(h("p", {}, h("a", { href: "/m/" + room.code, text: t("resultPage") })));
  else if (!seated && room.seats.some((s) => !s.name && !s.bot)) {
    // (a name typed and not yet sent stays across the redraws below)
    const typed = document.getElementById("joinname");
    const name = h("input", { id: "joinname", maxlength: 24, value: typed ? typed.value : me.name || "", placeholder: t("name") });
    const err = h("div", { class: "err" });
    card.append(h("div", { class: "row" }, name, h("button", { class: "primary", type: "button", "data-testid": "take-seat", text: t("joinTable"), onclick: async () => {
      try {
        if (!me.name || name.value !== me.name) await api("/api/me", { method: "POST", body: { name: name.value } });
        await api(`/api/rooms/${CODE}/join`, { method: "POST" });
        showLobby();
      } catch (e2) { tell(err, e2); }
    } })), err);
  } else if (removed) {  // the table is no longer this page's: its board goes, the reason stays
    // (and no move still queued to be played draws it again: anim.js and render() need a
    // VIEW, and applyState sets none once this is shown)
    removedHere = true;
    VIEW = null;
    for (const id of ["boardbox", "actions", "helpline"]) document.getElementById(id).replaceChildren();
    document.querySelector("[data-testid=say]").hidden = true;
    const warned = document.getElementById("sameaddr");
    if (warned) warned.remove();
    card.append(h("p", { class: "err", "data-testid": "removed-you", text: t("removedYou") }));
  }
  else if (!seated) {
    card.append(h("p", { text: t("notSeated") }));
    if (room.status === "playing" && room.spectators) card.append(WATCH.button(connect, me));
  }
  else {
    card.append(h("p", { text: t("waitingFriends") }));
    if (room.owner) {
      // start early: the open seats get bots of the level chosen here (the room's own first)
      // (kept across the redraws every 2 s while the room waits)
      botLevels = botLevels || await api("/api/bot-levels");
      startLevel = startLevel || (room.seats.find((s) => s.bot) || {}).bot || "greedy";
      const level = h("select", { id: "startbot", "data-testid": "start-bot", "aria-label": t("botLevel"),
        onchange: () => { startLevel = level.value; } },
        botLevels.map((b) => h("option", { value: b, selected: b === startLevel }, t("level_" + b) === "level_" + b ? b : t("level_" + b))));
      card.append(h("div", { class: "row" }, h("label", { for: "startbot", text: t("botLevel") }), level,
        h("button", { class: "primary", type: "button", "data-testid": "start-now", text: t("startNow"), onclick: async () => {
          await api(`/api/rooms/${CODE}/start`, { method: "POST", body: { bot: level.value } });
          showLobby();
        } })));
    }
    setTimeout(showLobby, 2000);
  }
  document.getElementById("lobbybox").replaceChildren(card);
  // a visitor with no seat in a waiting room: the room is read again every 2 s and the card
  // drawn again once its seats or its status change (the match started: the open seat is gone
  // and, where friends may watch, "Watch" is offered; a review found the card stale for good)
  if (!seated && !removed && room.status === "waiting") recheckLobby(roomShape(room));
}

function roomShape(room) {
  return JSON.stringify([room.status, room.seats.map((s) => [s.name, s.bot, s.mine])]);
}

let lobbyCheck = 0;  // the latest recheck's number: an older one ends when a newer one starts
function recheckLobby(shape) {
  const mine = ++lobbyCheck;
  const again = async () => {
    if (mine !== lobbyCheck || VIEW) return;  // drawn again meanwhile, or at the table now
    let room = null;
    try { room = await api(`/api/rooms/${CODE}`); } catch (err) { room = null; }
    if (mine !== lobbyCheck || VIEW) return;
    if (room && roomShape(room) !== shape) showLobby();
    else setTimeout(again, 2000);
  };
  setTimeout(again, 2000);
}

function main() {
  setLang(LANG);
  document.getElementById("code").textContent = CODE;
  document.getElementById("langslot").append(langButton(render));
  document.getElementById("copy").addEventListener("click", async () => {
    try { await navigator.clipboard.writeText(location.href); toast(t("copied")); } catch (e) { toast(location.href); }
  });
  const hb = document.getElementById("helpbox");
  hb.checked = localStorage.getItem("caishen.help") === "1";
  hb.addEventListener("change", () => { localStorage.setItem("caishen.help", hb.checked ? "1" : "0"); send({ type: "help", on: hb.checked }); });
  document.getElementById("soundslot").append(...SOUND.controls());
  document.getElementById("sayslot").append(...SAY.controls(send));
  document.getElementById("voteslot").append(...VOTES.controls(send));
  // back after a drop with the stand-in on: what it did for this seat meanwhile
  PLAY.onCaughtUp = (n) => toast(n ? t("standInMoved", n) : t("standInPlaying"), 8000);
  showLobby();
}

main();
