// caishen game centre: shared helpers (i18n, DOM, tiles, API). Plain JS, no build step.
// Every text from the server (names above all) goes into the page with textContent, never HTML.
"use strict";

const I18N = {
  zh: {
    sameAddress: "注意：{0} 从同一网络地址连接（可能是同一个人或同一家人）", close: "关闭",
    standIn: "托管（离线或超时时）", pace: "机器人出牌", pace_normal: "正常", pace_fast: "快", pace_instant: "立即（一人练习）", standIn_discard: "只摸打", standIn_full: "机器人代打",
    chatPlaceholder: "说点什么…", chatSend: "发送",
    removeSeat: "请 {0} 离桌", removeSure: "请 {0} 离开本桌？其座位由机器人打到比赛结束，且不能再回来。",
    seatRemoved: "房主已请 {0} 离桌：机器人代打到比赛结束", standInMoved: "你不在时托管替你走了 {0} 步；点“我回来了”或自己出牌即结束托管", standInPlaying: "你不在时由托管代打；点“我回来了”或自己出牌即结束托管", removedYou: "房主已请你离开本桌：机器人代你打到比赛结束。",
    removedTag: "已离桌（机器人代打）",
    spectatorsAllowed: "允许观战", chatAllowed: "允许文字聊天", spectatorsOn: "可观战", chatOn: "可聊天",
    watch: "观战", spectating: "观战中", watchingList: "观战：{0}", spectatingNote: "你在观战：只看得到所有人都看得到的牌，并且慢一步",
    watchRefused_spectators_off: "这个房间不允许观战", watchRefused_too_many_spectators: "观战的人已满",
    watchRefused_not_playing: "这个房间没有在打牌", watchRefused_not_signed_in: "请先取一个昵称",
    say: "快捷语", say_hello: "大家好！", say_hurry: "快点吧，等得花儿都谢了", say_nice: "打得好！", say_thanks: "谢谢",
    say_sorry: "不好意思", say_again: "再来一局！", say_bye: "先走了，下次再玩", say_smile: "微笑", say_laugh: "大笑",
    say_cry: "哭", say_angry: "生气", say_tea: "喝茶", say_thumb: "点赞",
    title: "财神麻将", lobby: "大厅", account: "账户", accountLink: "账户（注册 / 登录）", name: "昵称", save: "保存", playingAs: "当前昵称：", logoutAll: "在所有设备上退出", confirmLogoutAll: "在所有设备上退出？每台设备都要重新取昵称，之前的对局不再归你（有账户的话，重新登录即可）。",
    pickName: "先取一个昵称", nameFirst: "请先在上面填写昵称", practice: "一键练习（龙港麻将，对三个机器人）", createRoom: "创建房间",
    variant: "玩法", hands: "局数", toBreak: "打到断筹", friends: "好友座位", botLevel: "机器人水平",
    timer: "出牌时限（秒，0 为不限）", helpAllowed: "允许新手提示", houseRules: "地方规则（房规）",
    create: "创建", joinByCode: "凭房间号加入", join: "加入", myMatches: "我的对局",
    status: "状态", players: "玩家", chips: "筹码", open: "打开", backToTable: "回到牌桌", handsHead: "各局", result: "战绩",
    waiting: "等待中", playing: "进行中", over: "已结束", damaged: "已损坏", roomCode: "房间号", copyLink: "复制链接",
    storageLost: "与存储的连接中断，正在重试……", roomDamaged: "这个房间的记录已损坏，无法继续；可以下载到最后一步一致的记录。",
    copied: "已复制", startNow: "现在开始（空位由机器人补上）", waitingFriends: "等待好友加入……",
    seatOpen: "空位", you: "你", seenFrom: "视角", bot: "机器人", wall: "牌墙", indicator: "翻牌", dealer: "庄",
    hand: "第{0}局", handOf: "第{0}/{1}局", yourTurn: "轮到你了", claimOn: "{0}家打出这张，要吗？", robOn: "{0}家加杠这张，抢杠吗？", waitingFor: "等待其他玩家",
    discardHint: "点击一张牌打出", tapTwiceHint: "点一张牌选中，再点一次打出", pass: "过", win: "胡", pong: "碰", chow: "吃",
    exposed_kong: "杠", added_kong: "补杠", concealed_kong: "暗杠", discard: "打", declare_draw: "叫和局",
    nine_terminals: "九么九和", declaredBy: "{0}叫和局", drawWhy: "流局：{0}", comma: "，",
    draw_wall: "牌摸完", draw_four_winds: "四风连打", draw_four_kongs: "四杠", draw_three_wins: "一炮三响", draw_declared: "叫和局",
    nextHand: "下一局", scoreTable: "本局计分", rule: "规则", item: "项目", fu: "胡", tai: "台",
    total: "合计", chipsWon: "输赢", chipsAfter: "现有筹码", winner: "赢家", drawGame: "流局",
    matchOver: "比赛结束", standings: "排名", resultPage: "战绩页（可分享）", help: "新手提示",
    speech: "语音", shanten: "向听", shantenHead: "向听数", waits: "听", unseen: "未见", ready: "听牌！",
    away: "托管中", back: "我回来了", takeover: "让机器人替{0}打", disconnected: "掉线", connecting: "连接中……",
    fairness: "公平性", commitment: "承诺（发牌前公布）", seed: "种子（局后公开）", verify: "验证",
    download: "下载牌谱 (JSON)", replay: "回放", fromAbove: "上帝视角", seat: "座位", prev: "上一步",
    next: "下一步", play: "播放", pause: "暂停", step: "步", verifyOk: "验证通过", verifyFail: "验证失败",
    tableFee: "头钱（L25）：每人带 {0} 筹码入局，开局各付头钱 {1}，所以从 {2} 算起",
    wentBroke: "断筹（L25）：{0}", rebuyOne: "加筹（L25.4）：{0} 借给 {1} 共 {2} 筹，已算入“现有筹码”",
    rebuyMany: "加筹（L25.4）：{0} 借出，{1} 借入，已算入“现有筹码”",
    browserCheckedAll: "共{0}局、{1}次摸牌：每副牌墙、骰子和摸牌都出自公开的种子和各家随机数，链条完整",
    browserCheckedMoves: "；走牌：{0}步由玩家自己的密钥签名，{1}步由服务器签名（机器人、托管），{2}步未签名",
    notSeated: "你不在这张桌子上。", joinTable: "入座", wilds: "财神", ownFlowerWild: "各家坐花（标在各家手牌中）", timeLeft: "剩余",
    clubTable: "亲友圈「{0}」的桌子：只有本圈成员可以入座。", clubPageLink: "去亲友圈页面（加入或申请）",
    backToLobby: "返回大厅", language: "English", winds: "东南西北", hidden: "暗",
    noMatches: "还没有对局。", selfDraw: "自摸", onDiscard: "接炮", robKong: "抢杠", bulldozer: "推土机",
    handsPlayed: "局数", created: "时间", rank: "名次", moves: "步", notPlayable: "暂不可玩",
    ciTile: "次牌", payments: "支付", from: "付", to: "收", amount: "金额",
    tian_hu: "天胡", tian_ci: "天次", an_ci: "暗次", zhi_ci: "直次", xu_ci: "续次", zha_dan: "炸弹",
    // what each Gangci win is, for one who has not played it (docs/rules/luoyang-gangci.md G5)
    explain_tian_hu: "天胡：庄家起手十四张就成胡牌，按炸弹结算",
    explain_tian_ci: "天次：手里有三张与次牌一样的牌，连同次牌四张都归他，按暗次结算",
    explain_an_ci: "暗次：手里四张一样的牌作暗杠，其余的牌加上次牌成胡",
    explain_zhi_ci: "直次：手里有刻子且听次牌，别人打出第四张，杠了以次牌成胡",
    explain_zha_dan: "炸弹：听牌后自己摸到所听的牌（普通自摸），每家付炸弹底",
    explain_xu_ci: "续次：碰过的牌摸到第四张，加杠后以次牌成胡",
    seaFloorShort: "海底",
    kongReplacement: "杠上开花", seaFloor: "海底捞月", seaFloorLeft: "另有{0}张海底牌（分张）", fromSeat: "{0}打出", secondsLeft: "{0}秒", nextIn: "{0}秒后自动开始下一局", nextWaiting: "还在等：{0}",
    "variant_longgang": "龙港麻将", "variant_luoyang-gangci": "洛阳杠次",
    level_random: "随机", level_greedy: "贪心", level_strong: "强", level_learned: "学习型",
    err_no_room: "没有这个房间（请检查房间号或链接）", err_not_a_club_member: "这张桌子只给本圈成员：请先加入亲友圈", err_empty_name: "名字不能为空",
    err_invalid: "有一项填得不对，请检查后再试", err_no_club: "没有这个亲友圈", err_not_an_admin: "只有本圈管理员可以这样做", err_not_a_member: "只有本圈成员可以这样做", err_not_started: "这场比赛还没有开始",
    err_too_many_requests: "操作太频繁，请 {0} 秒后再试", err_too_many_rooms: "你开着的房间太多了：先打完一个，或等最早的那个满一天",
    err_bad_room: "这样设定的房间开不了：{0}", err_no_seat: "这个房间已经没有空座位", err_not_room_owner: "只有房主可以开始", noReplay: "没有这一局的回放（{0}）", handMissing: "这场比赛没有第{0}局", handInPlay: "第{0}局还在进行中：打完后才有回放", openElsewhere: "这个座位已在别的窗口打开", useHere: "在这里继续",
    codeOrLink: "房间号或链接", turnTimer: "出牌时限{0}秒",
    yes: "是", no: "否", choice_turn_order: "按出牌顺序", choice_clockwise: "顺时针",
    keysHelp: "键盘：← → 选牌，或打出牌名（5p、7z、f2）；回车打出；W 胡，P 碰，C 吃，K 杠，D 叫和局，X 或空格 过",
    sound: "声音",
    goodDiscards: "建议打：", waitsUnseen: "能和的牌还剩{0}张", improvingUnseen: "有效进张还剩{0}张",
    turnOf: "轮到{0}", concealedCount: "手牌张数", scoredSets: "计分的组", baseNote: "（20是和牌的底胡，L23；每台翻一番）", scoredPairs: "八对半（L14）· 计分的组", how: "怎么算",
    pay_L24_2: "付赢家", pay_L24_4: "输家之间的差额", pay_L24_6: "腊子", pay_L24_8: "包三家", pay_L25_3: "断筹：付完所剩",
    presets: "规则方案", customRules: "自定", customRulesDoc: "自己选的房规（见下面的地方规则）。", ruleDetails: "显示规则编号和开关名",
    endedHands: "{0}局打完，比赛结束", endedBroke: "{0}断筹，比赛在第{1}局后结束",
    endedDismissed: "投票解散：比赛在打完{0}局后结束（未打完的一局不计）",
    vote: "投票", voteDismiss: "申请解散房间", votePause: "申请暂停", voteAsksDismiss: "{0}申请解散房间",
    voteAsksPause: "{0}申请暂停游戏", voteYes: "同意", voteNo: "拒绝", votePassedDismiss: "投票通过：房间解散",
    votePassedPause: "投票通过：游戏暂停", voteFailed: "投票未通过", voteRule: "全体同意即通过，有人拒绝即不通过；30秒后过半数同意也通过",
    pausedBanner: "游戏已暂停（投票），{0}后自动继续", resume: "继续游戏", resumedBy: "{0}继续了游戏", resumedTime: "暂停时间到，游戏继续",
    pausedShort: "游戏暂停中", err_vote_cooldown: "刚投过票，请稍后再发起", err_vote_open: "已有投票进行中", err_paused_already: "游戏已在暂停中",
    err_not_seated: "只有在座的玩家可以这样做", err_no_vote: "这次投票已结束", err_already_voted: "你已经投过票了", err_table_paused: "游戏暂停中，请先继续",
    err_not_paused: "游戏没有暂停", err_no_match: "比赛已结束",
    myProfile: "我的资料", profiles: "个人资料：",
  },
  en: {
    sameAddress: "Note: {0} are connected from the same network address (one person, or one household)", close: "Close",
    standIn: "Stand-in (托管) when away", pace: "Bots play", pace_normal: "at a normal pace", pace_fast: "fast", pace_instant: "at once (practice alone)", standIn_discard: "draw and discard only", standIn_full: "full bot",
    chatPlaceholder: "Say something…", chatSend: "Send",
    removeSeat: "Remove {0}", removeSure: "Remove {0} from this table? A bot plays the seat to the end of the match, and they cannot come back.",
    seatRemoved: "The host removed {0}: a bot plays the seat to the end of the match",
    standInMoved: "While you were away the stand-in made {0} move(s) for you; press \u201cI'm back\u201d or make a move to end it",
    standInPlaying: "While you were away the stand-in played for you; press \u201cI'm back\u201d or make a move to end it",
    removedYou: "The host removed you from this table: a bot plays your seat to the end of the match.",
    removedTag: "removed (a bot plays)",
    spectatorsAllowed: "Friends may watch", chatAllowed: "Free-text chat", spectatorsOn: "spectators welcome", chatOn: "chat on",
    watch: "Watch", spectating: "Spectating", watchingList: "Watching: {0}", spectatingNote: "You are watching: only what every player sees, one move behind",
    watchRefused_spectators_off: "This room does not allow spectators", watchRefused_too_many_spectators: "Too many spectators already",
    watchRefused_not_playing: "This room is not playing", watchRefused_not_signed_in: "Pick a name first",
    say: "Say", say_hello: "Hello, everyone!", say_hurry: "Hurry up, please", say_nice: "Well played!", say_thanks: "Thanks",
    say_sorry: "Sorry", say_again: "One more match!", say_bye: "I must go, see you next time", say_smile: "smile",
    say_laugh: "laugh", say_cry: "cry", say_angry: "angry", say_tea: "tea", say_thumb: "thumbs up",
    presets: "Rules preset", customRules: "Custom", customRulesDoc: "Your own mix of house rules (see House rules below).", ruleDetails: "Show rule IDs and switch names",
    title: "caishen mahjong", lobby: "Lobby", account: "Account", accountLink: "Account (sign up, log in)", name: "Name", save: "Save", playingAs: "Playing as ", logoutAll: "Log out everywhere", confirmLogoutAll: "Log out on every device? Each must pick a name again, and your matches so far stay with the old name (unless you have an account: then log in again).",
    pickName: "Pick a display name first", nameFirst: "Type a display name above first", practice: "Practice now (Longgang, against 3 bots)", createRoom: "Create a room",
    variant: "Variant", hands: "Hands", toBreak: "until 断筹", friends: "Seats for friends", botLevel: "Bot level",
    timer: "Turn timer (seconds, 0 = none)", helpAllowed: "Allow learner help", houseRules: "House rules",
    create: "Create", joinByCode: "Join by code", join: "Join", myMatches: "My matches",
    status: "Status", players: "Players", chips: "Chips", open: "Open", backToTable: "Back to the table", handsHead: "Hands", result: "Result",
    waiting: "waiting", playing: "playing", over: "finished", damaged: "damaged", roomCode: "Room", copyLink: "Copy link",
    storageLost: "Connection to storage lost, retrying…", roomDamaged: "This room's stored moves are damaged: it cannot go on. Its record up to the last consistent move can be downloaded.",
    copied: "Copied", startNow: "Start now (bots take the open seats)", waitingFriends: "Waiting for friends…",
    seatOpen: "open seat", you: "you", seenFrom: "seen from here", bot: "bot", wall: "Wall", indicator: "Indicator", dealer: "Dealer",
    hand: "Hand {0}", handOf: "Hand {0}/{1}", yourTurn: "Your turn", claimOn: "{0} discarded this tile: claim it?", robOn: "{0} adds this tile to a kong: rob it?", waitingFor: "Waiting for the others",
    discardHint: "Click a tile to discard it", tapTwiceHint: "Tap a tile to pick it, tap it again to discard", pass: "Pass", win: "Win 胡", pong: "Pong 碰", chow: "Chow 吃",
    exposed_kong: "Kong 杠", added_kong: "Add kong 补杠", concealed_kong: "Concealed kong 暗杠", discard: "Discard",
    declare_draw: "Declare a draw 叫和局", nine_terminals: "nine terminals and honours 九么九和", declaredBy: "declared by {0}",
    drawWhy: "Draw (流局): {0}", comma: ", ", draw_wall: "the wall ran out", draw_four_winds: "four winds 四风连打",
    draw_four_kongs: "four kongs 四杠", draw_three_wins: "three wins on one discard 一炮三响", draw_declared: "declared 叫和局",
    nextHand: "Next hand", scoreTable: "Score of the hand", rule: "Rule", item: "Item", fu: "胡", tai: "台",
    total: "Total", chipsWon: "This hand", chipsAfter: "Chips now", winner: "Winner", drawGame: "Draw (流局)",
    matchOver: "Match over", standings: "Standings", resultPage: "Result page (share it)", help: "Learner help",
    speech: "Speak calls", shanten: "Shanten", shantenHead: "Shanten (steps from ready)", waits: "waiting on", unseen: "unseen", ready: "Ready!",
    away: "bot playing", back: "I'm back", takeover: "Let a bot play for {0}", disconnected: "offline", connecting: "Connecting…",
    fairness: "Fair play", commitment: "Commitment (published before the hand)", seed: "Seed (revealed after)",
    verify: "Verify", download: "Download record (JSON)", replay: "Replay", fromAbove: "From above",
    seat: "Seat", prev: "Back", next: "Forward", play: "Play", pause: "Pause", step: "step", verifyOk: "Verified",
    tableFee: "Table fee 头钱 (L25): each brought {0} chips and paid a fee of {1} at the start, so the chips count from {2}",
    wentBroke: "Went broke 断筹 (L25): {0}", rebuyOne: "Top-up 加筹 (L25.4): {0} lent {1} {2} chips, counted in “Chips now”",
    rebuyMany: "Top-up 加筹 (L25.4): {0} lent, {1} borrowed, counted in “Chips now”",
    browserCheckedAll: "{0} hands, {1} draws: every wall, die and draw comes from the revealed seeds and contributions; the chain holds",
    browserCheckedMoves: "; moves: {0} signed by the person's own key, {1} by the server (bots, stand-ins), {2} unsigned",
    verifyFail: "Verification failed", notSeated: "You do not sit at this table.", joinTable: "Take a seat",
    wilds: "Wilds", ownFlowerWild: "each seat's own flower (marked in its hand)", timeLeft: "left",
    clubTable: "A table of the club “{0}”: only its members take a seat.", clubPageLink: "The club's page (join or ask to)",
    backToLobby: "Lobby", language: "中文", winds: "ESWN", hidden: "hidden",
    noMatches: "No matches yet.", selfDraw: "self-drawn", onDiscard: "on a discard", robKong: "robbing a kong",
    bulldozer: "bulldozer", handsPlayed: "Hands", created: "Created", rank: "Rank", moves: "moves",
    notPlayable: "not playable yet",
    ciTile: "次牌 (ci tile)", payments: "Payments", from: "From", to: "To", amount: "Amount",
    tian_hu: "heavenly win 天胡", tian_ci: "heavenly ci 天次", an_ci: "concealed-kong ci 暗次",
    zhi_ci: "ci on a discard 直次", xu_ci: "added-kong ci 续次", zha_dan: "bomb 炸弹",
    explain_tian_hu: "Heavenly win: the dealer's first fourteen tiles are a complete hand; paid as a bomb.",
    explain_tian_ci: "Heavenly ci: three tiles of the ci tile's kind in hand; with the face-up ci tile all four are his. Paid as a concealed-kong ci.",
    explain_an_ci: "Concealed-kong ci: four of a kind in hand set aside as a kong, the rest and the face-up ci tile make a complete hand.",
    explain_zhi_ci: "Ci on a discard: ready on the ci tile with a triplet in hand, another player discards its fourth tile; the kong takes the ci tile.",
    explain_xu_ci: "Added-kong ci: ready on the ci tile, the fourth tile of a pong is drawn; added to the pong, the kong takes the ci tile.",
    explain_zha_dan: "Bomb: a plain self-drawn win on a tile the hand waited for; each other player pays the bomb base.",
    seaFloorShort: "sea floor",
    kongReplacement: "on a kong's replacement tile 杠上开花", seaFloor: "on the last tile 海底捞月",
    seaFloorLeft: "and {0} sea-floor tiles (分张), one to each seat at the end",
    fromSeat: "from {0}", secondsLeft: "{0} s", nextIn: "Starts by itself in {0} s", nextWaiting: "Still waiting for {0}",
    "variant_longgang": "Longgang 龙港麻将", "variant_luoyang-gangci": "Luoyang Gangci 洛阳杠次",
    level_random: "random", level_greedy: "greedy", level_strong: "strong", level_learned: "learned",
    err_no_room: "No such room (check the code or link)", err_not_a_club_member: "This table is for the club's members: join the club first", err_empty_name: "The name is empty",
    err_invalid: "Something entered is not valid: check it and try again", err_no_club: "No such club", err_not_an_admin: "Only the club's admins may do this", err_not_a_member: "Only the club's members may do this", err_not_started: "This match has not started",
    err_too_many_requests: "Too many requests: try again in {0} s", err_too_many_rooms: "You have too many open rooms: finish one, or wait until the oldest is a day old",
    err_bad_room: "A room set up so cannot be played: {0}", err_no_seat: "This room has no open seat", err_not_room_owner: "Only the room's owner can start it", noReplay: "No replay of this hand ({0})", handMissing: "this match has no hand {0}", handInPlay: "Hand {0} is being played: its replay comes once it ends", openElsewhere: "This seat is open in another window", useHere: "Continue here",
    codeOrLink: "code or link", turnTimer: "turn timer {0} s",
    yes: "yes", no: "no", choice_turn_order: "turn order", choice_clockwise: "clockwise",
    keysHelp: "Keys: ← → pick a tile, or type its name (5p, 7z, f2); Enter discards it; W win, P pong, C chow, K kong, D declare a draw, X or Space pass",
    sound: "Sound",
    goodDiscards: "Good discards:", waitsUnseen: "{0} unseen winning tiles", improvingUnseen: "{0} unseen tiles improve it",
    turnOf: "{0} to play", concealedCount: "tiles in hand", scoredSets: "Scored sets", baseNote: " (20: the base every win adds, L23; each 台 doubles the sum)", scoredPairs: "Eight and a half pairs 八对半 (L14) · scored sets", how: "How",
    pay_L24_2: "to the winner", pay_L24_4: "difference between losers", pay_L24_6: "limit 腊子", pay_L24_8: "pays for all 包三家",
    pay_L25_3: "broke: paid what was left",
    endedHands: "The match is over: all {0} hands played", endedBroke: "The match ended after hand {1}: {0} went broke (断筹)",
    endedDismissed: "Dismissed by vote after {0} finished hands (the hand in play is not scored)",
    vote: "Vote", voteDismiss: "Dismiss the room", votePause: "Pause the game", voteAsksDismiss: "{0} asks to dismiss the room",
    voteAsksPause: "{0} asks to pause the game", voteYes: "Yes", voteNo: "No", votePassedDismiss: "Vote passed: the room is dismissed",
    votePassedPause: "Vote passed: the game is paused", voteFailed: "The vote failed",
    voteRule: "All yes passes, any no fails; after 30 s more than half saying yes passes",
    pausedBanner: "Paused by vote: goes on by itself in {0}", resume: "Resume", resumedBy: "{0} resumed the game", resumedTime: "The pause is over: play on",
    pausedShort: "The game is paused", err_vote_cooldown: "A vote has just ended: wait a moment", err_vote_open: "A vote is open already",
    err_paused_already: "The game is paused already", err_not_seated: "Only the people seated at the table can do that", err_no_vote: "That vote has ended",
    err_already_voted: "You have voted", err_table_paused: "The game is paused: resume it first", err_not_paused: "The game is not paused",
    err_no_match: "The match is over",
    myProfile: "My profile", profiles: "Profiles:",
  },
};

let LANG = localStorage.getItem("caishen.lang") || ((navigator.language || "").startsWith("zh") ? "zh" : "en");

function t(key, ...args) {
  let s = (I18N[LANG] && I18N[LANG][key]) || I18N.en[key] || key;
  args.forEach((a, i) => { s = s.replace(`{${i}}`, String(a)); });
  return s;
}

function setLang(lang) {
  LANG = lang;
  localStorage.setItem("caishen.lang", lang);
  document.documentElement.lang = lang === "zh" ? "zh-Hans" : "en";
  document.querySelectorAll("[data-i18n]").forEach((el) => { el.textContent = t(el.dataset.i18n); });
  // a refusal on show follows the language (it stayed in the one it was shown in)
  for (const el of TOLD) if (el._told && el.textContent === el._told.message) el.textContent = el._told.message = el._told.say();
}

// Show a refusal (an api() error, or any Error; null clears) in element ``el``; shown with
// tell(), it is said again in the other language when the page's language changes.
const TOLD = new Set();
function tell(el, err) {
  el.textContent = err ? err.message : "";
  el._told = err && typeof err.say === "function" ? err : null;
  if (el._told) TOLD.add(el);
}

// h("div", {class: "x", onclick: f}, child, "text", ...): text children become text nodes.
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "class") el.className = v;
    else if (k === "text") el.textContent = v;
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

// A request to the server's API: its JSON answer. A refusal throws an Error whose message is in
// the page's language where the page knows its code (the words "err_" + code, from common.js or
// the page's own script; a 422 with a list of fields is "invalid"), else the server's own words
// (English); ``.code`` keeps the code. {0} in the words is the wait a 429 names, else the
// server's detail.
async function api(path, opts = {}) {
  const res = await fetch(path, {
    method: opts.method || "GET",
    headers: opts.body ? { "Content-Type": "application/json" } : {},
    body: opts.body ? JSON.stringify(opts.body) : undefined,
    credentials: "same-origin",
  });
  const data = await res.json().catch(() => null);
  if (!res.ok) {
    const detail = data && data.detail ? (typeof data.detail === "string" ? data.detail : JSON.stringify(data.detail)) : res.statusText;
    const code = data && typeof data.code === "string" ? data.code : res.status === 422 && data && Array.isArray(data.detail) ? "invalid" : null;
    const key = "err_" + code, arg = res.headers.get("Retry-After") || detail;
    const say = () => (code && t(key) !== key ? t(key, arg) : detail);
    const err = new Error(say());
    err.code = code;
    err.say = say;  // the words again, in the page's language of the moment (tell)
    throw err;
  }
  return data;
}

// A time from the server as a Date (UTC; naive ISO text is UTC too).
function serverDate(iso) { return new Date(/(Z|[+-]\d\d:\d\d)$/.test(iso) ? iso : iso + "Z"); }

// A time from the server (UTC; naive ISO text is UTC too) in this browser's time zone: "MM-DD HH:MM".
function localStamp(iso) {
  const d = serverDate(iso);
  if (Number.isNaN(d.getTime())) return String(iso).slice(5, 16).replace("T", " ");
  const two = (n) => String(n).padStart(2, "0");
  return `${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}`;
}

// ---------------------------------------------------------------- tiles

const CN_NUM = "一二三四五六七八九";
const HONOURS = ["东", "南", "西", "北", "白", "发", "中"];
const FLOWER_CHARS = ["春", "夏", "秋", "冬"];
const SUIT_CHAR = { m: "万", p: "筒", s: "条" };

function tileFace(name) {
  if (name === "back") return { top: "", bottom: "", cls: "back" };
  if (name[0] === "f") {
    const n = Number(name[1]);
    return { top: FLOWER_CHARS[n - 1], bottom: "花", cls: "flower" };
  }
  const n = Number(name[0]);
  const suit = name[1];
  if (suit === "z") return { top: HONOURS[n - 1], bottom: "", cls: "honour z" + n };
  return { top: suit === "m" ? CN_NUM[n - 1] : String(n), bottom: SUIT_CHAR[suit], cls: "suit-" + suit };
}

// A tile's Chinese name as the scoring's Chinese labels write it (caishen.tiles.chinese_name):
// 一万, 五筒, 红中, 春.
function tileNameZh(name) {
  if (name[0] === "f") return FLOWER_CHARS[Number(name[1]) - 1];
  const k = Number(name[0]);
  if (name[1] === "z") return ["东风", "南风", "西风", "北风", "白板", "发财", "红中"][k - 1];
  return CN_NUM[k - 1] + SUIT_CHAR[name[1]];
}

// A tile's English name for a reader who does not know the engine's notation: "9 of
// Characters", "East Wind", "Red Dragon", "Autumn" (docs/notation.md gives the notation).
const EN_SUIT = { m: "Characters", p: "Dots", s: "Bamboo" };
function tileNameEn(name) {
  if (name[0] === "f") return ["Spring", "Summer", "Autumn", "Winter"][Number(name[1]) - 1];
  const k = Number(name[0]);
  if (name[1] === "z") return ["East Wind", "South Wind", "West Wind", "North Wind", "White Dragon", "Green Dragon", "Red Dragon"][k - 1];
  return `${k} of ${EN_SUIT[name[1]]}`;
}

// The scoring's list of wilds, "f4=1m,8m=7z": [held, meant] pairs, each wild as the tile held
// and the tile it stood for.
function wildPairs(list) {
  return list.split(",").map((sub) => sub.split("="));
}

// A scoring item's English as the engine writes it ("exposed pong 9m", "triplet of 7z Red",
// "pair of 5p (wild f3=5p)") with its tiles named in words: "exposed pong 9 of Characters",
// "triplet of Red Dragon", "pair of 5 of Dots (wild: Autumn as 5 of Dots)".
function itemEn(text) {
  return (text || "")
    .replace(/ \(wild ([^)]*)\)/g, (_, list) => ` (wild: ${wildPairs(list).map(([held, meant]) =>
      `${tileNameEn(held)} as ${tileNameEn(meant)}`).join(", ")})`)
    .replace(/\b([1-7])z(?: (?:East|South|West|North|White|Green|Red))?\b/g, (x) => tileNameEn(x.slice(0, 2)))
    .replace(/\b([1-9][mps]|f[1-4])\b/g, (x) => tileNameEn(x));
}

// A tile as a small drawn block: the character on top, the suit below (e.g. 五 / 万).
function tileEl(name, opts = {}) {
  const f = tileFace(name);
  const el = h("span", { class: `tile ${f.cls} ${opts.size || ""}`, title: name, "data-tile": name });
  if (f.cls !== "back") {
    el.append(h("span", { class: "t-top", text: f.top }));
    if (f.bottom) el.append(h("span", { class: "t-bot", text: f.bottom }));
  }
  if (opts.wild) { el.classList.add("wild"); el.append(h("span", { class: "badge", text: "财" })); }
  if (opts.own) el.classList.add("own-flower");
  if (opts.last) el.classList.add("last");
  return el;
}

// A hand in the record's notation (docs/notation.md: "123m55z f2 [777z] {5p4p6p}") as groups of
// tile names, {meld, tiles} each; null if it does not parse (the text is shown instead).
function handGroups(text) {
  const out = [];
  for (const tok of text.trim().split(/\s+/)) {
    if (!tok) continue;
    if (/^f\d+$/.test(tok)) { out.push({ meld: false, tiles: [...tok.slice(1)].map((d) => "f" + d) }); continue; }
    const m = /^([[<({])(.*)([\]>)}])$/.exec(tok);
    const body = m ? m[2] : tok;
    const tiles = [];
    const re = /(\d+)([mpsz])/y;
    let run;
    let end = 0;  // a failed sticky match sets lastIndex back to 0
    while ((run = re.exec(body)) !== null) {
      for (const d of run[1]) tiles.push(d + run[2]);
      end = re.lastIndex;
    }
    if (end !== body.length || !tiles.length) return null;
    // a chow ({546p}) is written claimed tile first (docs/notation.md)
    out.push(m ? { meld: true, ...shownSet(tiles, m[1] === "{") } : { meld: false, tiles });
  }
  return out;
}

// A hand in notation drawn as tiles (melds apart), its text as the tooltip.
function handEl(text) {
  const groups = handGroups(text);
  if (!groups) return h("span", { class: "muted", text });
  return h("span", { class: "handtiles", title: text }, groups.map((g) => g.meld
    ? setEl(g)
    : h("span", { class: "run" }, g.tiles.map((x) => tileEl(x, { size: "xs" })))));
}

// A set laid open as a player reads it. A chow is stored and written claimed tile first
// ("9p 7p 8p", {978p}): shown in order, the claimed tile marked. {tiles (in the order shown), claimed}
function shownSet(tiles, chow) {
  return chow ? { tiles: [...tiles].sort(), claimed: tiles[0] } : { tiles, claimed: null };
}

// A set drawn (at the table, in a score table's hand): shownSet's tiles, the claimed one raised.
function setEl({ tiles, claimed }, size = "xs", title = undefined) {
  return h("span", { class: "meld", title }, tiles.map((x) => {
    const el = tileEl(x, { size });
    if (x === claimed) el.classList.add("claimed");
    return el;
  }));
}

// A choice switch's value (G3.1 "turn_order") in the page's language; other values as they are.
function choiceText(value) {
  return "choice_" + value in I18N.en ? t("choice_" + value) : String(value);
}

function langButton(onChange) {
  const b = h("button", { class: "lang", type: "button", text: t("language") });
  b.addEventListener("click", () => {
    setLang(LANG === "zh" ? "en" : "zh");
    b.textContent = t("language");
    onChange();
    LANG_HOOKS.forEach((f) => f());
  });
  return b;
}

// A panel a bar's button opens, put just under the button: on a phone the bar wraps to
// several rows, and a panel at a fixed height covered the button that closes it.
function below(panel, button) { panel.style.top = `${Math.round(button.getBoundingClientRect().bottom) + 4}px`; }

// What a page drew outside its own render (the bar's buttons and panels, the lines of the
// table's key and fairness) draws itself again in the new language: onLang(f) calls f after
// every change of language.
const LANG_HOOKS = [];
function onLang(f) { LANG_HOOKS.push(f); }

// A bot's seat as "bot 2" in the page's language (its stored name, "greedy bot 2", has the level)
function botName(name) { return `${t("bot")} ${(/\d+$/.exec(name) || [""])[0]}`.trim(); }

// The level of a bot's stored name ("greedy bot 2" -> "greedy"), null for a person's.
function botLevel(name) {
  const m = /^(\w+) bot \d+$/.exec(name || "");
  return m && I18N.en["level_" + m[1]] ? m[1] : null;
}

// A player's name as the page shows it: a bot's stored name ("greedy bot 2") in the page's
// language with its level ("机器人 2（贪心）"); a person's as it is.
function playerName(name) {
  const m = /^(\w+) bot (\d+)$/.exec(name);
  return m && I18N.en["level_" + m[1]] ? `${t("bot")} ${m[2]} (${t("level_" + m[1])})` : name;
}
