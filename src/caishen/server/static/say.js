// Quick phrases and stickers at the table (issue 30, table manners): a fixed list, sent as
// {type: "say", say}; the server tells every page {type: "said", seat, say}, shown for a few
// seconds beside that seat's name, in this page's language. No free text: nothing a person
// types reaches another page. The stickers are drawings shipped with the package (stickers/).
"use strict";

const SAY = (() => {
  const PHRASES = ["hello", "hurry", "nice", "thanks", "sorry", "again", "bye"];
  const STICKERS = ["smile", "laugh", "cry", "angry", "tea", "thumb"];
  const SHOWN_MS = 4000;
  const said = new Map();  // engine seat -> {say, until}
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
      if (el) el.append(h("div", { class: "said", "data-testid": "said", "data-say": s.say, role: "status" }, content(s.say)));
    }
  }

  function onSaid(msg) {
    said.set(msg.seat, { say: msg.say, until: Date.now() + SHOWN_MS });
    decorate();
    setTimeout(decorate, SHOWN_MS + 50);
  }

  // The button that opens the list, and the list; ``send`` sends a message on the socket.
  function controls(send) {
    const panel = h("div", { class: "saypanel", hidden: true, "data-testid": "saypanel" });
    const pick = (say) => { send({ type: "say", say }); panel.hidden = true; };
    const fill = () => panel.replaceChildren(
      h("div", { class: "phrases" }, PHRASES.map((p) => h("button", { type: "button", "data-say": p, onclick: () => pick(p), text: t("say_" + p) }))),
      h("div", { class: "stickers" }, STICKERS.map((p) => h("button", { type: "button", "data-say": p, title: t("say_" + p), onclick: () => pick(p) }, content(p)))));
    // shown once the page is at the table (table.js, on its socket's open): before, nobody hears
    const button = h("button", { type: "button", "data-testid": "say", hidden: true, text: t("say"),
      onclick: () => { fill(); panel.hidden = !panel.hidden; } });
    return [button, panel];
  }

  return { controls, onSaid, decorate, PHRASES, STICKERS, preloaded };
})();
