"""The lobby's plain names of the house-rule switches and of the presets, in English and Chinese.

A switch's ``doc`` (in the rules) is its one-line explanation; here is the short name a player
reads first (``SWITCH_TITLE``: switch name → (English, Chinese)). The rule ID and the switch's
own name stay behind the lobby's "details" toggle. ``PRESET_TEXT`` names each preset a room
can start from and says in one line where it comes from (docs/server.md, "House-rule presets").
Every switch and preset of every registered variant has one (tests/test_server_protocol.py).
"""

from __future__ import annotations

from typing import Final

SWITCH_TITLE: Final[dict[str, tuple[str, str]]] = {
    # Longgang (docs/rules/longgang.md)
    "name": ("Name of the rules", "规则名称"),
    "hand_size": ("Tiles in a hand", "手牌张数"),
    "has_flowers": ("Flowers in the tiles", "有花牌"),
    "has_white": ("White dragon in the tiles", "有白板"),
    "allow_chow": ("Chow allowed", "可以吃牌"),
    "opening_kong_round": ("Kong round at the start", "开局补杠轮"),
    "wild_indicator": ("Turned tile makes wilds", "翻牌定财神"),
    "flower_indicator_wilds": ("Flower wilds", "花财神"),
    "own_flower_wild": ("Own flower is wild", "坐花当财神"),
    "bulldozer": ("Wilds win at once", "推土机"),
    "bulldozer_wilds": ("Wilds for the bulldozer", "推土机要几张财神"),
    "wild_single_wait_any_tile": ("Lone wild wins on anything", "财神单吊胡任何牌"),
    "rob_kong_with_wild_pair": ("Rob a kong with a wild pair", "抢杠可用财神成将"),
    "eight_and_half_pairs": ("Eight and a half pairs", "八对半"),
    "eight_and_half_pairs_limit": ("Eight and a half pairs is a limit", "八对半算腊子"),
    "seven_pairs": ("Seven pairs", "七对"),
    "heavenly_win": ("Heavenly win", "天胡"),
    "earthly_win": ("Earthly win", "地胡"),
    "human_win": ("Human win", "人胡"),
    "dead_wall_stacks": ("Dead wall size", "王牌墩数"),
    "sea_floor_tiles": ("Sea-floor tiles", "海底牌张数"),
    "sea_floor_kong_no_discard": ("Replacement before the sea floor kept", "分张前补牌不打"),
    "indicator_splits_tail": ("Indicator splits the tail", "翻牌拆尾墩"),
    "draw_on_four_winds": ("Four winds end the hand", "四风连打流局"),
    "draw_on_four_kongs": ("Four kongs end the hand", "四杠流局"),
    "draw_on_three_wins": ("Three wins on one tile end the hand", "一炮三响流局"),
    "draw_on_nine_terminals": ("Nine terminals: declare a draw", "九么九和"),
    "base_fu": ("Base fu", "底胡"),
    "flower_fu": ("Fu per flower", "每张花的胡数"),
    "self_draw_fu": ("Fu for self-draw", "自摸胡数"),
    "closed_wait_fu": ("Fu for a closed wait", "卡张胡数"),
    "edge_single_wait_fu": ("Edge and single waits score too", "边张单吊也算胡"),
    "single_honor_pair_self_draw_fu": ("Self-drawn honour pair adds 2", "单吊字牌自摸加 2 胡"),
    "max_total": ("Cap on fu", "满贯胡数"),
    "kong_replacement_tai": ("Win on a kong replacement: 1 tai", "杠上开花算台"),
    "single_wait_tai": ("Single wait: 1 tai", "单吊算台"),
    "loser_four_flowers_tai": ("Four flowers for a loser", "没胡的四花台数"),
    "one_dragon_tai": ("One dragon: 1 tai", "一条龙算台"),
    "concealed_hand_tai": ("Concealed hand: 1 tai", "门清算台"),
    "all_claimed_tai": ("All claimed: 1 tai", "全求人算台"),
    "four_winds_wild_rule": ("Wilds in four winds restricted", "四喜限财神"),
    "four_guardians_limit": ("Four guardians is a limit", "四金刚算腊子"),
    "rare_limits": ("Rare hands are limits", "极难牌役算腊子"),
    "all_green_limit": ("All green is a limit", "绿一色算腊子"),
    "sixteen_unconnected_limit": ("Sixteen unconnected is a limit", "十六不搭算腊子"),
    "sixteen_knitted_limit": ("Sixteen knitted is a limit", "十六不靠算腊子"),
    "red_peacock_limit": ("Red peacock is a limit", "红孔雀算腊子"),
    "red_dots_limit": ("Red dots is a limit", "点点红算腊子"),
    "red_spot_limit": ("Red spot is a limit", "红一点算腊子"),
    "all_black_limit": ("All black is a limit", "黑一色算腊子"),
    "million_stones_limit": ("Million stones is a limit", "百万石算腊子"),
    "thirteen_orphans_limit": ("Thirteen orphans is a limit", "十三么算腊子"),
    "eight_pairs_terminal_limits": ("Terminal pairs count as terminals", "么九八对半算老头"),
    "fu_per_chip": ("Fu per chip", "几胡一筹"),
    "bonus_fu": ("Bonus by tai", "跟胡数"),
    "bonus_fu_after_broke": ("Bonus after someone broke", "断筹后跟胡数"),
    "limit_chips": ("Chips for a limit", "腊子筹码"),
    "limit_chips_after_broke": ("Limit chips after someone broke", "断筹后腊子筹码"),
    "start_chips": ("Chips to start", "起始筹码"),
    "table_fee": ("Table fee", "头钱"),
    "rebuy_on_broke": ("Top up the first broke player", "断筹加筹"),
    "discarder_pays_all": ("Feeder pays for all", "包三家"),
    "late_discard_tiles": ("How late is late", "晚期张数"),
    "hands_per_match": ("Hands in a match", "一场局数"),
    # Luoyang Gangci (docs/rules/luoyang-gangci.md)
    "gang_base": ("Kong base", "杠底"),
    "bomb_base": ("Bomb base", "炸弹底"),
    "ci_base": ("Ci base", "杠次底"),
    "seat_count": ("Dice count direction", "骰子数座方向"),
    "dealer_keeps_deal_on_win": ("Dealer keeps the deal on a win", "庄家胡牌连庄"),
}

#: Preset name → (English title, Chinese title, English line, Chinese line).
PRESET_TEXT: Final[dict[str, tuple[str, str, str, str]]] = {
    "longgang": (
        "Main text", "正文规则",
        "The rules of the main Longgang text (the default).",
        "龙港麻将正文的规则（默认）。"),
    "longgang-simplified-copy": (
        "Simplified copy", "简体版规则",
        "The simplified copy's rules: the main text, but a wild in four winds needs no more wilds (现在习惯上不作此限制).",
        "简体版的规则：同正文，但四喜中的财神不作限制（现在习惯上不作此限制）。"),
    "longgang-common": (
        "Common house rules", "常见房规",
        "What the sources say is played now: four winds with a wild unrestricted, and a self-drawn "
        "single wait on Red, Green or the seat wind adds the self-draw 2.",
        "各来源说现在习惯的打法：四喜中的财神不作限制；单吊红中、发财或坐风自摸，也计自摸 2 胡。"),
    "luoyang-gangci": (
        "Source's bases", "原文底数",
        "Bases 100 / 200 / 600 (杠底 / 炸弹底 / 杠次底), the source's first scheme.",
        "杠底 100、炸弹底 200、杠次底 600（原文第一种）。"),
    "luoyang-gangci-scheme-2": (
        "Scheme 2", "方案二",
        "The source's scheme 2: bases 1000 / 2000 / 6000.",
        "原文方案二：杠底 1000、炸弹底 2000、杠次底 6000。"),
}
