import Testing

@testable import ContactResolution

/// The Han tables generated once, offline, from ICU
/// (`Resources/han-variants.txt`, `Resources/han-readings.txt`,
/// `scripts/generate_han_tables.swift`): the resolver folds traditional
/// characters and reads pinyin from them, with no ICU call at run time. Every
/// expected value below is written out by hand.
@Suite("Han tables: script variants and readings without ICU")
struct HanTablesTests {
    @Test(
        "each traditional character folds to its simplified one, several to one",
        arguments: [
            ("張", "张"), ("鍾", "钟"), ("鐘", "钟"), ("單", "单"), ("蕭", "萧"), ("歐陽", "欧阳"), ("樂", "乐"),
            ("國", "国"), ("偉", "伟"),
        ])
    func variant(_ traditional: String, _ simplified: String) {
        #expect(HanScript.simplified(traditional) == simplified)
    }

    @Test("what is not a traditional character is kept as it is")
    func untouched() {
        #expect(HanScript.simplified("Dr. 張偉 42") == "Dr. 张伟 42")
        #expect(HanScript.simplified("张伟") == "张伟")
        #expect(HanScript.simplified("Юлия Щукина") == "Юлия Щукина")
        #expect(HanScript.simplified("") == "")
    }

    @Test(
        "a character's toneless pinyin, in either script",
        arguments: [
            ("张", "zhang"), ("張", "zhang"), ("伟", "wei"), ("单", "dan"), ("單", "dan"), ("吕", "lu"), ("女", "nu"),
            ("欧", "ou"), ("萧", "xiao"),
        ])
    func reading(_ character: Unicode.Scalar, _ reading: String) {
        #expect(HanScript.reading(of: character) == reading)
    }

    @Test("letters of other scripts have no Han reading", arguments: ["A" as Unicode.Scalar, "Ю", "é", "1"])
    func noReading(_ scalar: Unicode.Scalar) {
        #expect(HanScript.reading(of: scalar) == nil)
    }

    /// What crashed the full suite's process was a first use of the Han
    /// conversion from many tasks at once, through ICU. Whichever test runs
    /// first in a process, many tasks spelling names together must each get
    /// the whole answer.
    @Test("many tasks spelling names at once each get the same spellings")
    func concurrent() async {
        let names: [(String, Set<String>)] = [
            ("張偉", ["zhang wei", "zhangwei", "wei zhang"]),
            ("歐陽文傑", ["ouyang wen jie", "ouyangwenjie", "ou yang wen jie", "ouyang wenjie", "wenjie ouyang"]),
            ("单国华", ["shan guo hua", "shanguohua", "dan guo hua", "shan guohua", "guohua shan"]),
        ]
        await withTaskGroup(of: (Int, Set<String>).self) { group in
            for task in 0..<96 {
                let index = task % names.count
                group.addTask { (index, NameSpellings.of(names[index].0)) }
            }
            for await (index, spellings) in group {
                #expect(spellings == names[index].1, "\(names[index].0)")
            }
        }
    }
}
