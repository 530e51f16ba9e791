/// Short forms people say for given names: English nicknames (Bob for
/// Robert; the public `nicknames` list in ``PublicNicknames`` plus the pairs
/// below) and Russian diminutives (Dima for Dmitry), as normalized Latin
/// spellings. A contact's own `nickname` and `aliases` extend this per person.
enum Nicknames {
    /// Nickname → the formal names it can stand for.
    static let formalNames: [String: Set<String>] = {
        var table: [String: Set<String>] = [:]
        for (formal, nicknames) in pairs {
            for nickname in nicknames { table[nickname, default: []].insert(formal) }
        }
        for line in PublicNicknames.lines.split(separator: "\n") {
            let parts = line.split(separator: ":")
            guard parts.count == 2 else { continue }
            for nickname in parts[1].split(separator: ",") {
                table[String(nickname), default: []].insert(String(parts[0]))
            }
        }
        return table
    }()

    private static let pairs: [(String, [String])] = [
        // English
        ("robert", ["bob", "bobby", "rob", "robbie", "bert"]),
        ("william", ["bill", "billy", "will", "willie", "liam"]),
        ("richard", ["rick", "ricky", "dick", "rich"]), ("james", ["jim", "jimmy", "jamie"]),
        ("john", ["johnny", "jack", "jon"]), ("jonathan", ["jon", "jonny"]), ("michael", ["mike", "mikey", "mick"]),
        ("elizabeth", ["liz", "lizzie", "beth", "betty", "eliza", "libby"]), ("margaret", ["maggie", "meg", "peggy"]),
        ("katherine", ["kate", "katie", "kathy", "kat"]), ("catherine", ["cathy", "cat", "kate"]),
        ("thomas", ["tom", "tommy"]), ("joseph", ["joe", "joey"]), ("daniel", ["dan", "danny"]),
        ("christopher", ["chris", "kit"]), ("christina", ["chris", "tina"]),
        ("alexander", ["alex", "xander", "sasha"]),
        ("alexandra", ["alex", "lexi", "sasha"]), ("anthony", ["tony"]), ("edward", ["ed", "eddie", "ted", "ned"]),
        ("benjamin", ["ben", "benny"]), ("samuel", ["sam", "sammy"]), ("samantha", ["sam", "sammy"]),
        ("matthew", ["matt"]), ("nicholas", ["nick", "nicky"]), ("patricia", ["pat", "patty", "trish"]),
        ("patrick", ["pat", "paddy"]), ("jennifer", ["jen", "jenny"]), ("rebecca", ["becky", "becca"]),
        ("steven", ["steve"]), ("stephen", ["steve"]), ("timothy", ["tim", "timmy"]), ("victoria", ["vicky", "tori"]),
        ("andrew", ["andy", "drew"]), ("david", ["dave", "davy"]), ("susan", ["sue", "susie"]),
        ("deborah", ["deb", "debbie"]), ("gregory", ["greg"]), ("jacob", ["jake"]), ("kenneth", ["ken", "kenny"]),
        ("lawrence", ["larry"]), ("peter", ["pete"]), ("raymond", ["ray"]), ("ronald", ["ron", "ronnie"]),
        ("theodore", ["ted", "teddy", "theo"]), ("zachary", ["zach", "zack"]), ("brandon", ["bran"]),
        // Russian diminutives (BGN and common spellings of the formal name)
        ("dmitriy", ["dima", "dimka", "mitya"]), ("dmitry", ["dima", "mitya"]),
        ("aleksandr", ["sasha", "sanya", "shura"]),
        ("aleksandra", ["sasha", "shura"]), ("mikhail", ["misha", "mishka"]), ("nikolay", ["kolya"]),
        ("sergey", ["seryozha", "serezha", "sergei"]), ("ivan", ["vanya"]), ("yekaterina", ["katya", "katia"]),
        ("ekaterina", ["katya", "katia"]), ("mariya", ["masha", "mashenka"]), ("maria", ["masha"]),
        ("natalya", ["natasha", "nata"]), ("natalia", ["natasha"]), ("yelena", ["lena", "lenochka"]),
        ("elena", ["lena"]), ("olga", ["olya"]), ("anastasiya", ["nastya", "asya"]), ("anastasia", ["nastya"]),
        ("tatyana", ["tanya"]), ("tatiana", ["tanya"]), ("vladimir", ["volodya", "vova", "vovka"]),
        ("aleksey", ["alyosha", "lyosha", "lesha", "alesha"]), ("alexey", ["alyosha", "lyosha"]),
        ("andrey", ["andryusha"]),
        ("pavel", ["pasha"]), ("yevgeniy", ["zhenya"]), ("evgeny", ["zhenya"]), ("yuliya", ["yulya", "yulechka"]),
        ("yulia", ["yulya"]), ("svetlana", ["sveta"]), ("lyudmila", ["lyuda", "mila"]), ("irina", ["ira"]),
        ("konstantin", ["kostya"]), ("viktor", ["vitya"]), ("boris", ["borya"]), ("grigoriy", ["grisha"]),
        ("anna", ["anya", "anechka"]), ("galina", ["galya"]), ("valentina", ["valya"]), ("ludmila", ["lyuda"]),
        ("yuriy", ["yura"]), ("anatoliy", ["tolya"]), ("kseniya", ["ksyusha"]), ("darya", ["dasha"]),
        ("sofya", ["sonya"]), ("gennadiy", ["gena"]), ("vyacheslav", ["slava"]), ("stanislav", ["stas"]),
        ("yaroslav", ["slava"]), ("valeriy", ["valera"]), ("leonid", ["lyonya"]), ("roman", ["roma"]),
        ("vasiliy", ["vasya"]), ("petr", ["petya"]), ("fedor", ["fedya"]), ("zinaida", ["zina"]),
        ("nadezhda", ["nadya"]), ("lyubov", ["lyuba"]), ("vera", ["verochka"]), ("larisa", ["lara"]),
    ]
}
