// The share card of a finished match (战绩分享): a PNG drawn here, in the page, on a canvas, with
// the page's own fonts (a Chinese name needs no font shipped by the server: docs/server.md,
// "Profiles and share cards"). ShareCard.draw(result) returns the canvas and every text drawn
// on it with its box (the browser test checks the names are there and inked).
"use strict";

Object.assign(I18N.zh, {
  shareCard: "战绩图", shareCardDoc: "一张战绩图片（PNG）：玩家、筹码和最大的一局。", downloadPng: "下载图片 (PNG)", share: "分享",
  cardTitle: "财神麻将 · 战绩", biggestHand: "最大一局", noWin: "没有人胡牌", cardFooter: "caishen 财神 · 发牌可验证",
  cardHands: "{0}局", deletedPlayer: "已删除玩家",
});
Object.assign(I18N.en, {
  shareCard: "Share card", shareCardDoc: "The result as a picture (PNG): players, chips and the biggest hand.", downloadPng: "Download image (PNG)", share: "Share",
  cardTitle: "caishen mahjong · result", biggestHand: "Biggest hand", noWin: "Nobody won a hand", cardFooter: "caishen 财神 · verifiable deals",
  cardHands: "{0} hands", deletedPlayer: "deleted player",
});

const ShareCard = (() => {
  const W = 1080, H = 1350;
  const FONT = 'system-ui, "Noto Sans CJK SC", "PingFang SC", "Microsoft YaHei", sans-serif';
  const GOLD = "#f2c94c", PAPER = "#fbf8ef", INK = "#1d1d1d";

  // A name as the card shows it: a bot's in the page's language, a deleted account's too.
  const shown = (name) => (name === "deleted player" ? t("deletedPlayer") : playerName(name));

  // The biggest hand: the most chips a winner took in one hand (the first of equals); null if none was won.
  function biggest(res) {
    let best = null;
    for (const end of res.hands) {
      if (end.winner === null || end.winner === undefined) continue;
      const line = end.lines[end.winner];
      if (!best || line.chips > best.line.chips) best = { end, line };
    }
    return best;
  }

  function roundRect(ctx, x, y, w, h, r) {
    ctx.beginPath();
    ctx.moveTo(x + r, y);
    ctx.arcTo(x + w, y, x + w, y + h, r);
    ctx.arcTo(x + w, y + h, x, y + h, r);
    ctx.arcTo(x, y + h, x, y, r);
    ctx.arcTo(x, y, x + w, y, r);
    ctx.closePath();
  }

  function draw(res) {
    const canvas = document.createElement("canvas");
    canvas.width = W;
    canvas.height = H;
    const ctx = canvas.getContext("2d");
    const texts = [];
    // Draw `text` at (x, y: the baseline), at most `max` wide (the font shrinks to `min` px,
    // then the text is cut with "…"); its box goes in `texts` with its role.
    const put = (text, x, y, o) => {
      let size = o.size;
      const font = (s) => `${o.weight || "normal"} ${s}px ${FONT}`;
      ctx.font = font(size);
      while (o.max && ctx.measureText(text).width > o.max && size > (o.min || size)) { size -= 2; ctx.font = font(size); }
      let s = text;
      if (o.max && ctx.measureText(s).width > o.max) {
        while (s.length > 1 && ctx.measureText(s + "…").width > o.max) s = [...s].slice(0, -1).join("");
        s += "…";
      }
      ctx.fillStyle = o.color || INK;
      ctx.textAlign = o.align || "left";
      ctx.textBaseline = "alphabetic";
      ctx.fillText(s, x, y);
      const m = ctx.measureText(s);
      const left = o.align === "right" ? x - m.width : o.align === "center" ? x - m.width / 2 : x;
      texts.push({ role: o.role || "", text: s, x: Math.floor(left), y: Math.floor(y - m.actualBoundingBoxAscent),
        w: Math.ceil(m.width), h: Math.ceil(m.actualBoundingBoxAscent + m.actualBoundingBoxDescent) });
    };
    // the felt, a red band on top
    const bg = ctx.createLinearGradient(0, 0, 0, H);
    bg.addColorStop(0, "#1f5d45");
    bg.addColorStop(1, "#123a2c");
    ctx.fillStyle = bg;
    ctx.fillRect(0, 0, W, H);
    ctx.fillStyle = "#7a1f1f";
    ctx.fillRect(0, 0, W, 230);
    ctx.fillStyle = GOLD;
    ctx.fillRect(0, 230, W, 8);
    put(t("cardTitle"), W / 2, 110, { size: 64, weight: "bold", color: GOLD, align: "center", max: W - 120, min: 40, role: "title" });
    const played = res.hands.length;
    put(`${t("variant_" + res.variant)} · ${t("cardHands", played)}`, W / 2, 180,
      { size: 40, color: "#fff", align: "center", max: W - 120, min: 28, role: "variant" });
    // the standings: rank, name, chips
    let y = 290;
    for (const s of res.standings) {
      ctx.fillStyle = PAPER;
      roundRect(ctx, 60, y, W - 120, 130, 24);
      ctx.fill();
      ctx.fillStyle = s.rank === 1 ? "#d9a400" : "#8a8a8a";
      ctx.beginPath();
      ctx.arc(135, y + 65, 42, 0, 2 * Math.PI);
      ctx.fill();
      put(String(s.rank), 135, y + 83, { size: 48, weight: "bold", color: "#fff", align: "center", role: "rank" });
      put(shown(s.name), 205, y + 85, { size: 52, weight: "bold", max: 560, min: 30, role: "name" });
      put(String(s.chips), W - 100, y + 85, { size: 52, weight: "bold", color: s.rank === 1 ? "#b8321f" : INK, align: "right", role: "chips" });
      y += 150;
    }
    // the biggest hand: who, how, the chips it took, the winning hand as tiles
    y += 20;
    ctx.fillStyle = "#0007";
    roundRect(ctx, 60, y, W - 120, 330, 24);
    ctx.fill();
    put(t("biggestHand"), 100, y + 70, { size: 40, weight: "bold", color: GOLD, role: "biggest" });
    const best = biggest(res);
    if (!best) {
      put(t("noWin"), 100, y + 150, { size: 44, color: "#fff", role: "nowin" });
    } else {
      const how = best.end.win_type ? t(best.end.win_type) : howText(best.end.how);
      put(t("hand", best.end.index + 1), W - 100, y + 70, { size: 36, color: "#fff", align: "right", role: "bighand" });
      put(`${shown(best.line.name)} · ${how}`, 100, y + 145, { size: 46, weight: "bold", color: "#fff", max: 640, min: 28, role: "winner" });
      put(`+${best.line.chips}`, W - 100, y + 145, { size: 52, weight: "bold", color: GOLD, align: "right", role: "bigchips" });
      tiles(ctx, best.line.hand, best.end.tile, 100, y + 190, W - 200);
      if (!best.end.win_type && best.line.total) {  // Longgang: 胡 and 台, and the total (L24)
        put(`${best.line.fu} ${t("fu")} · ${best.line.tai} ${t("tai")} · ${t("total")} ${best.line.total}`, 100, y + 300,
          { size: 34, color: "#ffffffd0", max: W - 200, min: 24, role: "score" });
      }
    }
    put(t("cardFooter"), W / 2, H - 50, { size: 32, color: "#ffffffb0", align: "center", role: "footer" });
    return { canvas, texts };
  }

  // The winning hand (notation: docs/notation.md) and the winning tile (gold-edged, apart) as
  // small drawn tiles from (x, y), at most w wide.
  function tiles(ctx, text, winning, x, y, w) {
    const groups = handGroups(text || "") || [];
    if (winning) groups.push({ meld: false, tiles: [winning], won: true });
    const n = groups.reduce((a, g) => a + g.tiles.length, 0) + Math.max(0, groups.length - 1) * 0.4;
    const tw = Math.min(60, n ? Math.floor(w / n) - 4 : 60), th = Math.round(tw * 1.38);
    let cx = x;
    for (const g of groups) {
      for (const name of g.tiles) {
        const f = tileFace(name);
        ctx.fillStyle = PAPER;
        roundRect(ctx, cx, y, tw, th, 6);
        ctx.fill();
        if (g.won) {
          ctx.strokeStyle = GOLD;
          ctx.lineWidth = 4;
          ctx.stroke();
        }
        const colour = { "suit-p": "#1f4e9c", "suit-s": "#21804a", flower: "#b0306a" }[f.cls] || (f.cls === "honour z7" ? "#c0392b" : INK);
        ctx.fillStyle = colour;
        ctx.textAlign = "center";
        ctx.textBaseline = "middle";
        ctx.font = `bold ${Math.round(tw * 0.5)}px ${FONT}`;
        ctx.fillText(f.top, cx + tw / 2, y + th * (f.bottom ? 0.36 : 0.5));
        if (f.bottom) {
          ctx.fillStyle = f.cls === "suit-m" ? "#c0392b" : colour;
          ctx.font = `${Math.round(tw * 0.34)}px ${FONT}`;
          ctx.fillText(f.bottom, cx + tw / 2, y + th * 0.75);
        }
        cx += tw + 4;
      }
      cx += Math.round(tw * 0.4);
    }
  }

  // The card as PNG bytes (a Blob).
  function png(canvas) {
    return new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error("no PNG"))), "image/png"));
  }

  return { draw, png, biggest, W, H };
})();
