/// Han characters whose reading as a surname differs from their most common
/// reading, which is what ICU's Han-Latin transform produces (单 "dan", but
/// the surname is Shan). Applied to the first character of a Han name.
enum SurnameReadings {
    static let single: [Character: String] = [
        "单": "shan", "曾": "zeng", "解": "xie", "仇": "qiu", "区": "ou", "朴": "piao", "乐": "yue",
        "覃": "qin", "查": "zha", "盖": "ge", "繁": "po", "尉": "yu", "缪": "miao", "翟": "zhai",
        "种": "chong", "召": "shao", "长": "chang", "重": "chong", "沈": "shen", "秘": "bi", "折": "she",
        "员": "yun", "隗": "wei",
    ]

    /// Two-character surnames, so the given name is split off correctly.
    static let compound: [String: String] = [
        "欧阳": "ouyang", "司马": "sima", "诸葛": "zhuge", "上官": "shangguan", "东方": "dongfang",
        "皇甫": "huangfu", "尉迟": "yuchi", "万俟": "moqi", "慕容": "murong", "令狐": "linghu",
    ]
}
