// Quick phrases and stickers at the table (issue 30, table manners): a fixed list, sent as
// {type: "say", say}; the server tells every page {type: "said", seat, say}, shown for a few
// seconds beside that seat's name, in this page's language. Free text only where the room has
// chat on: {type: "chat", text} out, {type: "chatted", seat, name, text, at} in, shown as
// text (never markup) beside the seat and in the panel's log; a page that connects is told the
// table's latest lines again (again: true: logged, not shown as new). The stickers are
// drawings shipped with the package (stickers/).
"use strict";

const SAY = (() => {
  const PHRASES = ["hello", "hurry", "nice", "thanks", "sorry", "again", "bye"];
  const STICKERS = ["smile", "laugh", "cry", "angry", "tea", "thumb"];
  const SHOWN_MS = 4000;
  const CHAT_CHARS = 120;  // as the server's protocol.CHAT_CHARS
  const said = new Map();  // engine seat -> {say, until} or {text, until}
  const lines = new Map();  // the table's chat lines by number (at)
  let chatOn = false;
  let unread = 0;
  // fetched once with the page: a sticker then shows at once, not after its download
  const preloaded = STICKERS.map((p) => { const img = new Image(); img.src = `/static/stickers/${p}.svg`; return img; });

  function content(say) {
    if (STICKERS.includes(say)) return h("img", { src: `/static/stickers/${say}.svg`, alt: t("say_" + say), width: 40, height: 40 });
    return h("span", { text: t("say_" + say) });
  }

  // Put each seat's latest words beside it (called after every render: the board is redrawn).
  function decorate() {
    const now = Date.now();
    for (const el of document.querySelectorAll(".seat .said")) el.remove();
    for (const [seat, s] of said) {
      if (s.until <= now) { said.delete(seat); continue; }
      const el = document.querySelector(`.seat[data-seat="${seat}"]`);
      if (!el) continue;
      if (s.text !== undefined) el.append(h("div", { class: "said chat", "data-testid": "said", role: "status", text: s.text }));
      else el.append(h("div", { class: "said", "data-testid": "said", "data-say": s.say, role: "status" }, content(s.say)));
    }
  }

  function onSaid(msg) {
    said.set(msg.seat, { say: msg.say, until: Date.now() + SHOWN_MS });
    decorate();
    setTimeout(decorate, SHOWN_MS + 50);
  }

  function logEl() {
    const list = [...lines.values()].sort((a, b) => a.at - b.at);
    return h("ol", { class: "chatlog", "data-testid": "chatlog" }, list.map((l) =>
      h("li", {}, h("b", { text: l.name || t("seat") + " " + (l.seat + 1) }), ": ", h("span", { text: l.text }))));
  }

  function onChatted(msg) {
    lines.set(msg.at, msg);
    while (lines.size > 30) lines.delete(Math.min(...lines.keys()));
    const panel = document.querySelector("[data-testid=saypanel]");
    if (panel && !panel.hidden) { const log = panel.querySelector(".chatlog"); if (log) log.replaceWith(logEl()); }
    if (msg.again) return;  // told before this page connected: in the log, not news
    said.set(msg.seat, { text: msg.text, until: Date.now() + SHOWN_MS });
    decorate();
    setTimeout(decorate, SHOWN_MS + 50);
    if (panel && panel.hidden) { unread += 1; badge(); }
  }

  function badge() {
    const b = document.querySelector("[data-testid=say]");
    if (b) b.textContent = t("say") + (unread ? ` (${unread})` : "");
  }

  // The room's chat option (table.js, from the room): the panel gets a line to write in.
  function setChat(on) { chatOn = !!on; }

  // The button that opens the list, and the list; ``send`` sends a message on the socket.
  function controls(send) {
    const panel = h("div", { class: "saypanel", hidden: true, "data-testid": "saypanel" });
    const pick = (say) => { send({ type: "say", say }); panel.hidden = true; };
    const chatForm = () => {
      const input = h("input", { type: "text", maxlength: CHAT_CHARS, "data-testid": "chat-input",
        placeholder: t("chatPlaceholder"), "aria-label": t("chatPlaceholder") });
      const form = h("form", { class: "chatform", onsubmit: (e) => {
        e.preventDefault();
        const text = input.value.trim();
        if (text) send({ type: "chat", text });
        input.value = "";
      } }, input, h("button", { type: "submit", "data-testid": "chat-send", text: t("chatSend") }));
      return [logEl(), form];
    };
    const fill = () => panel.replaceChildren(
      h("div", { class: "phrases" }, PHRASES.map((p) => h("button", { type: "button", "data-say": p, onclick: () => pick(p), text: t("say_" + p) }))),
      h("div", { class: "stickers" }, STICKERS.map((p) => h("button", { type: "button", "data-say": p, title: t("say_" + p), onclick: () => pick(p) }, content(p)))),
      ...(chatOn ? chatForm() : []));
    // shown once the page is at the table (table.js, on its socket's open): before, nobody hears
    const button = h("button", { type: "button", "data-testid": "say", hidden: true, text: t("say"),
      onclick: () => { fill(); below(panel, button); panel.hidden = !panel.hidden; unread = 0; badge(); } });
    onLang(() => { badge(); if (!panel.hidden) fill(); });
    return [button, panel];
  }

  return { controls, onSaid, onChatted, setChat, decorate, PHRASES, STICKERS, preloaded };
})();
