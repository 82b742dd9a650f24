// The live table: WebSocket to the server, which sends this seat's view after every change.
"use strict";

const CODE = location.pathname.split("/").pop();
let VIEW = null;
let WS = null;
let deadline = null;
let lastDiscardSeat = null;
let sentNext = -1;
let retry = 500;
let drawn = null;  // the tile this seat just drew, shown apart

// The tile drawn between two views of one hand: the one tile more in hand, on this seat's
// turn to discard; null otherwise (a claim, a kong, the first view after a reload).
function drawnTile(before, now) {
  if (!before || !now.choices.some((c) => c.kind === "discard")) return null;
  if (now.tiles.length !== before.tiles.length + 1) return null;
  const left = before.tiles.slice();
  let extra = null;
  for (const x of now.tiles) {
    const i = left.indexOf(x);
    if (i >= 0) left.splice(i, 1);
    else if (extra === null) extra = x;
    else return null;
  }
  return extra;
}

function send(msg) { if (WS && WS.readyState === 1) WS.send(JSON.stringify(msg)); }
function act(action) { send({ type: "act", action, hand: VIEW.hand, step: VIEW.step }); }

function toast(text) {
  const el = h("div", { class: "toast", text });
  document.body.append(el);
  setTimeout(() => el.remove(), 2500);
}

const CALLS = { chow: "吃", pong: "碰", exposed_kong: "杠", added_kong: "杠", concealed_kong: "杠", win: "胡", declare_draw: "和局" };

function announce(events) {
  for (const ev of events) {
    if (ev.kind === "discard") lastDiscardSeat = ev.seat;
    const word = CALLS[ev.kind];
    if (!word) continue;
    const el = h("div", { class: "call", text: word });
    document.body.append(el);
    setTimeout(() => el.remove(), 900);
    if (document.getElementById("speechbox").checked && window.speechSynthesis) {
      const u = new SpeechSynthesisUtterance(word);
      u.lang = "zh-CN";
      speechSynthesis.speak(u);
    }
  }
}

function renderActions() {
  const box = document.getElementById("actions");
  box.replaceChildren();
  const v = VIEW;
  if (!v || v.hand_end) return;
  if (v.away) {
    box.append(h("span", { class: "prompt", text: t("away") }), h("button", { type: "button", onclick: () => send({ type: "back" }), text: t("back") }));
  }
  const claims = v.choices.filter((c) => c.kind !== "discard");
  const canDiscard = v.choices.some((c) => c.kind === "discard");
  if (!v.choices.length) {
    box.append(h("span", { class: "muted", text: t("waitingFor") }));
    return;
  }
  box.append(h("span", { class: "prompt", text: t("yourTurn") + (canDiscard ? " · " + t("discardHint") : "") }));
  if (deadline !== null) box.append(h("span", { class: "prompt", id: "claimtimer" }));
  if (v.last_discard && !canDiscard) box.append(tileEl(v.last_discard, { size: "sm", last: true }));
  for (const c of claims) {
    box.append(h("button", { type: "button", class: c.kind === "win" ? "win" : "", "data-action": c.action,
      onclick: () => act(c.action) }, t(c.kind), c.tiles.map((x) => tileEl(x, { size: "xs" }))));
  }
}

function renderHelp() {
  const box = document.getElementById("helpline");
  box.replaceChildren();
  const help = VIEW && VIEW.help;
  if (!help) return;
  box.append(h("div", { class: "help" },
    h("span", { text: help.shanten === 0 ? t("ready") : `${t("shanten")}: ${help.shanten}` }),
    help.waits.length ? h("span", {}, t("waits"), " ", help.waits.map((w) => h("span", {}, tileEl(w.tile, { size: "sm" }), `×${w.unseen} `))) : null));
}

function renderOverlay() {
  const box = document.getElementById("overlay");
  box.replaceChildren();
  const v = VIEW;
  if (!v || !v.hand_end) return;
  const panel = h("div", { class: "panel" }, scoreTableEl(v.hand_end));
  if (v.match_over) {
    panel.append(h("h2", { text: t("matchOver") }), standingsEl(v.standings),
      h("p", {}, h("a", { href: "/m/" + v.code, text: t("resultPage") })));
  } else {
    panel.append(h("h3", { text: t("standings") }), standingsEl(v.standings));
    const btn = h("button", { class: "primary big", type: "button", "data-testid": "next-hand", text: t("nextHand"),
      disabled: sentNext === v.hand, onclick: () => { sentNext = v.hand; send({ type: "next", hand: v.hand }); btn.disabled = true; } });
    panel.append(h("div", { class: "row" }, btn, h("a", { href: "/m/" + v.code, text: t("resultPage") })));
  }
  box.append(h("div", { class: "overlay" }, panel));
}

function render() {
  if (!VIEW) return;
  document.getElementById("lobbybox").replaceChildren();
  renderBoard(document.getElementById("boardbox"), VIEW, { onDiscard: act, drawn,
    lastDiscardSeat: VIEW.phase === "claim" ? VIEW.current : lastDiscardSeat });
  renderActions();
  renderHelp();
  renderOverlay();
  document.getElementById("helpbox").disabled = !VIEW.help_allowed;
  document.getElementById("commit").textContent = `${t("commitment")} #${VIEW.hand + 1}: ${VIEW.commitment}`;
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
}
setInterval(tick, 250);

function connect() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  WS = new WebSocket(`${proto}://${location.host}/ws/${CODE}`);
  WS.onopen = () => {
    retry = 500;
    if (document.getElementById("helpbox").checked) send({ type: "help", on: true });
  };
  WS.onmessage = (e) => {
    const msg = JSON.parse(e.data);
    if (msg.type === "error") { toast(msg.message); return; }
    if (msg.type !== "state") return;
    if (VIEW && msg.hand !== VIEW.hand) lastDiscardSeat = null;
    // the drawn tile is kept for its state (sent again on a join or a reconnect) and across a
    // reload of the page, so the hand shows as it was
    const key = "caishen.drawn." + CODE;
    if (VIEW === null) {
      const kept = JSON.parse(sessionStorage.getItem(key) || "null");
      drawn = kept && kept.hand === msg.hand && kept.step === msg.step ? kept.tile : null;
    } else if (VIEW.hand !== msg.hand || VIEW.step !== msg.step) {
      drawn = drawnTile(VIEW.hand === msg.hand ? VIEW : null, msg);
    }
    sessionStorage.setItem(key, JSON.stringify({ hand: msg.hand, step: msg.step, tile: drawn }));
    VIEW = msg;
    document.body.dataset.state = `${msg.hand}:${msg.step}:${msg.hand_end ? "end" : msg.choices.length}`;
    deadline = msg.deadline_ms === null ? null : Date.now() + msg.deadline_ms;
    announce(msg.events);
    render();
  };
  WS.onclose = (e) => {
    if (e.code === 1008) { showLobby(); return; }
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 8000);
  };
}

// Before the match: the seats, the link to share, joining, starting.
async function showLobby() {
  let room;
  try { room = await api(`/api/rooms/${CODE}`); } catch (err) {
    document.getElementById("copy").hidden = true;  // nothing to share
    document.getElementById("lobbybox").replaceChildren(h("section", { class: "card", style: "color:#000;margin:.8rem" },
      h("p", { "data-testid": "no-room", text: t("noSuchRoom") }), h("p", {}, h("a", { href: "/", text: t("backToLobby") }))));
    return;
  }
  const me = await api("/api/me");
  const seated = room.seats.some((s) => s.mine);
  if (room.status === "playing" && seated) { connect(); return; }
  const card = h("section", { class: "card", style: "color:#000;margin:.8rem" });
  card.append(h("h2", { text: `${t("roomCode")} ${room.code}` }), h("p", {}, h("a", { href: room.link, text: room.link })));
  // what everyone who joins agrees to play: the variant, the match, the house rules changed
  card.append(h("p", { "data-testid": "room-rules" }, h("b", { text: t("variant_" + room.variant) }),
    ` · ${t("hands")} ${room.hands ? room.hands : t("toBreak")}` + (room.turn_seconds ? ` · ${t("turnTimer", room.turn_seconds)}` : "")));
  if (room.rules.length) {
    card.append(h("p", { text: t("houseRules") }), h("ul", { class: "rules" }, room.rules.map((r) => h("li", {},
      h("span", { class: "rid", text: r.rule }), " ", LANG === "zh" ? r.doc_zh : r.doc, ": ",
      h("b", { text: typeof r.value === "boolean" ? t(r.value ? "yes" : "no") : Array.isArray(r.value) ? r.value.join(", ")
        : choiceText(r.value) })))));
  }
  card.append(h("ul", {}, room.seats.map((s) => h("li", { text: !s.name ? t("seatOpen")
    : s.bot ? `${botName(s.name)} (${t("level_" + s.bot)})` : `${s.name}${s.mine ? " · " + t("you") : ""}` }))));
  if (room.status === "over") card.append(h("p", {}, h("a", { href: "/m/" + room.code, text: t("resultPage") })));
  else if (!seated && room.seats.some((s) => !s.name && !s.bot)) {
    const name = h("input", { id: "joinname", maxlength: 24, value: me.name || "", placeholder: t("name") });
    const err = h("div", { class: "err" });
    card.append(h("div", { class: "row" }, name, h("button", { class: "primary", type: "button", "data-testid": "take-seat", text: t("joinTable"), onclick: async () => {
      try {
        if (!me.name || name.value !== me.name) await api("/api/me", { method: "POST", body: { name: name.value } });
        await api(`/api/rooms/${CODE}/join`, { method: "POST" });
        showLobby();
      } catch (e2) { err.textContent = e2.message; }
    } })), err);
  } else if (!seated) card.append(h("p", { text: t("notSeated") }));
  else {
    card.append(h("p", { text: t("waitingFriends") }));
    if (room.owner) card.append(h("button", { class: "primary", type: "button", text: t("startNow"), onclick: async () => {
      await api(`/api/rooms/${CODE}/start`, { method: "POST" });
      showLobby();
    } }));
    setTimeout(showLobby, 2000);
  }
  document.getElementById("lobbybox").replaceChildren(card);
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
  const sb = document.getElementById("speechbox");
  sb.checked = localStorage.getItem("caishen.speech") === "1";
  sb.addEventListener("change", () => localStorage.setItem("caishen.speech", sb.checked ? "1" : "0"));
  showLobby();
}

main();
