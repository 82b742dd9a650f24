"""The lobby's Chinese one-line explanations of the house-rule switches 房规说明, by switch name.

A switch's own ``doc`` (in the rules) is English with the Chinese term; the lobby shows this
text instead when the page is in Chinese. These are translations of those docs, not rules:
the rule and its source stay where the switch is declared. Every switch of every registered
variant has one (tests/test_server_protocol.py checks it).
"""

from __future__ import annotations

from typing import Final

SWITCH_DOC_ZH: Final[dict[str, str]] = {
    # Longgang (docs/rules/longgang.md)
    "hand_size": "摸牌前手中的张数：16 张（龙港）或 13 张",
    "has_flowers": "牌中有春夏秋冬四张花牌",
    "has_white": "牌中有白板",
    "allow_chow": "可以吃上家打出的牌",
    "opening_kong_round": "开局补完花后，南、西、北家依次可以暗杠（庄家在第一轮自己摸牌时）；留着的四张以后还可以杠",
    "wild_indicator": "发牌后翻开一张牌，同种的另外三张是财神",
    "flower_indicator_wilds": "翻开的是花牌时，其余的花牌都是财神（花财神）",
    "own_flower_wild": "自己座位的花（坐花）对自己是财神，留在手中",
    "bulldozer": "凑够正财神就直接胡牌（推土机，腊子）",
    "bulldozer_wilds": "推土机要几张正财神（金乡灵溪：4）",
    "wild_single_wait_any_tile": "手里只剩一张财神单吊时，胡任何牌都可以（财神单吊；有的地方不许）",
    "rob_kong_with_wild_pair": "财神单吊可以抢杠（有的地方不许财神单吊抢杠）",
    "eight_and_half_pairs": "八对半：七对加一副刻子，门清，不能有暗杠",
    "seven_pairs": "七对（只用于 13 张的规则）",
    "heavenly_win": "天胡：庄家起手就胡（腊子）",
    "earthly_win": "地胡：闲家胡庄家打的第一张牌（腊子）",
    "human_win": "人胡：第一圈内胡牌（腊子；龙港不打）",
    "dead_wall_stacks": "王牌（牌尾不摸的牌）的墩数（20 张，尾墩拆开时 21 张）",
    "sea_floor_tiles": "海底牌的张数：最后每人分一张（分张）",
    "sea_floor_kong_no_discard": "分张情形（一）②的做法：分张前补的牌摸了不打",
    "indicator_splits_tail": "翻牌使尾墩剩单张：开局留 21 张，补一次后 20 张（关：开局 20 张，补一次后 21 张）",
    "draw_on_four_winds": "四风连打：第一圈四家打出同一张风牌，本局流局（有的地方）",
    "draw_on_four_kongs": "四杠：不同玩家开出第四杠，本局流局，杠上开花也算流局（有的地方）",
    "draw_on_three_wins": "一炮三响 / 三炮同响：三家胡同一张牌，本局流局（有的地方）",
    "draw_on_nine_terminals": "九么九和：第一圈轮到自己时，手中有九种或以上么九牌的玩家可以叫和局（有的地方）",
    "base_fu": "底胡：加在赢家的牌面胡数上",
    "flower_fu": "每张亮出的客花的胡数",
    "self_draw_fu": "自摸的胡数",
    "closed_wait_fu": "卡张/坎张胡牌的胡数",
    "edge_single_wait_fu": "边张和单吊也算卡张的胡数（有的地方）",
    "single_honor_pair_self_draw_fu": "单吊红中、发财或本风自摸，也加自摸的 2 胡（新的习惯）",
    "eight_and_half_pairs_limit": "八对半算腊子（有的地方）",
    "max_total": "每人总胡数的上限（满贯）",
    "kong_replacement_tai": "杠上开花算 1 台（有的地方）",
    "single_wait_tai": "单吊算 1 台（有的地方）",
    "loser_four_flowers_tai": "没胡的玩家四花算几台（有的地方：1）",
    "one_dragon_tai": "一条龙：同一门 123 456 789 算 1 台（选用，有的地方）",
    "concealed_hand_tai": "门清 / 不求人：没有吃、碰、明杠，算 1 台（附录，选用）",
    "all_claimed_tai": "全求人 / 半求人：每副都是吃碰来的，单吊胡牌，算 1 台（附录，选用）",
    "four_winds_wild_rule": "带财神的四喜要两张以上财神，且财神不能当别的牌（关：不限，现在习惯上不作此限制）",
    "four_guardians_limit": "四金刚：四副字牌刻子，或三副加另一种字牌的将，算腊子（有的地方）",
    "rare_limits": "第八类腊子：五杠子、四杠子、五暗刻、五连刻、四连太宝算腊子（极难不常用之役）",
    "all_green_limit": "绿一色：只有 2 3 4 6 8 条和发财，算腊子（附录，选用）",
    "sixteen_unconnected_limit": "十六不搭：第一次摸牌就成，十六张中同门任两张至少相差三，另加一对将，算腊子（附录，选用）",
    "sixteen_knitted_limit": "十六不靠：三门各是 147、258、369 之一的十六不搭，算腊子（附录，选用）",
    "red_peacock_limit": "红孔雀：只有 1 5 7 9 条和红中，算腊子（附录，选用）",
    "red_dots_limit": "点点红：只有 1 3 5 6 7 9 筒加一对红中，算腊子（附录，选用）",
    "red_spot_limit": "红一点：只有 2 3 4 6 8 条加一对红中，算腊子（附录，选用）",
    "all_black_limit": "黑一色：只有风牌和 8 筒（及白板），算腊子（附录，选用）",
    "million_stones_limit": "百万石：全是万子，点数加起来 100 以上，以本名算腊子（本是清一色，本来就是腊子；附录，选用）",
    "eight_pairs_terminal_limits": "全是么九字牌的八对半算清老头/混老头（有的地方）",
    "fu_per_chip": "几胡合一个筹码",
    "bonus_fu": "按赢家台数 0/1/2/3+ 的跟胡数",
    "bonus_fu_after_broke": "有人断筹以后的跟胡数",
    "limit_chips": "腊子每个输家付的筹码：庄家、闲家",
    "limit_chips_after_broke": "有人断筹以后腊子的筹码",
    "start_chips": "每人带进一场的筹码",
    "table_fee": "头钱：开局时每人付的筹码",
    "rebuy_on_broke": "第一个断筹的玩家补足筹码（四人：50，五六人：100），接着打",
    "discarder_pays_all": "包三家：打出牌让人胡单纯四喜/字一色，或晚期打出生张中/发的人，替三家输家付",
    "late_discard_tiles": "剩下的活牌不多于这个数时，中/发包三家（分张前几张；0：不包）",
    "name": "规则集的名称",
    "hands_per_match": "一场打几局（0：打到断筹，仅龙港；房间用上面的局数选）",
    # Luoyang Gangci (docs/rules/gangci.md)
    "gang_base": "杠底：杠和每个次里都要付的底",
    "bomb_base": "炸弹底：炸弹或天胡时每人付的底",
    "ci_base": "杠次底：每个次付的底（须是偶数：直次的旁家付一半）",
    "seat_count": "骰子点数从庄家数座位的方向（庄家算 1）",
    "dealer_keeps_deal_on_win": "庄家胡牌就连庄（否则下庄）",
}
