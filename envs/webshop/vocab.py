"""Word lists for the WebShop catalog generator (generate.py).

Each narrow category ("query", as upstream's scrape query) belongs to one of
the five broad categories and lists: the head noun phrase products are named
with, its breadcrumb, the attributes mined for it (lower-case, as upstream's
items_ins_v2 attributes: "long lasting", "machine wash", "gluten free"), its
option names with value pools, title adjectives and materials, a base price in
dollars, and which head words are nouns (for ``name_nouns``).

Everything here is plain data; generate.py draws from it deterministically.
Option values avoid words that upstream's colour normalisation rewrites into a
different token ("peppered" -> "red", "light wash" -> "ash"), which would make
the reward of an exact gold purchase fall below 1 (tests check every goal).
"""
from __future__ import annotations

from dataclasses import dataclass

COLORS = ("black", "white", "red", "blue", "navy", "green", "pink", "purple", "grey", "brown", "beige",
          "ivory", "gold", "silver", "yellow", "orange", "teal", "burgundy", "khaki", "olive",
          "coral", "mint", "lavender", "charcoal", "rose gold", "light blue", "dark green", "hot pink")
CLOTHES_SIZES = ("x-small", "small", "medium", "large", "x-large", "xx-large", "3x-large")
SHOE_SIZES = ("6", "6.5", "7", "7.5", "8", "8.5", "9", "9.5", "10", "10.5", "11", "12", "13")
PACKS = ("pack of 1", "pack of 2", "pack of 3", "pack of 4", "pack of 6", "pack of 12")

# Brands are invented: syllables combined deterministically (proper nouns in titles).
BRAND_HEADS = ("lu", "ve", "ka", "mo", "zi", "ar", "be", "no", "sol", "tri", "qua", "ori", "fen", "dax",
               "el", "ny", "pal", "ro", "sev", "ther", "ul", "vor", "wen", "xan", "yo", "zen", "cal",
               "dri", "fo", "gal", "hal", "ix", "jun", "kor", "lin", "mar")
BRAND_MIDDLES = ("", "", "", "ra", "ni", "ve", "lo", "ta", "mi", "so", "ke", "du", "pa", "ri", "be", "ko", "za")
BRAND_TAILS = ("mora", "lix", "vana", "tek", "ora", "nest", "ly", "quin", "zo", "rium", "dale", "sto",
               "vex", "mi", "ton", "ssa", "bury", "ka", "nova", "loft", "pix", "wynn", "garde", "haus")

# Product-line names (title words, proper nouns): with the brand they tell apart
# products of one narrow category even in a 1.18M-product catalog.
LINE_NAMES = tuple("""
aurora summit breeze harbor meadow canyon ember glacier horizon lagoon maple nova orbit prairie tempo
ridge sierra tundra valley willow zephyr alpine bay cedar delta echo fjord grove haven island juniper
kestrel lumen mesa north oasis pioneer quest river sage timber urban vista wave xenon yukon zenith
atlas beacon cascade dune eclipse falcon garnet heron saga jasper karma lotus mosaic nimbus onyx
pebble raven solstice tango umbra vertex wren yarrow zion amber birch comet drift everest forge
granite halo iris jade kodiak lunar monsoon nectar opal phoenix quill radiant sonata tidal unity
nomad whisper yonder apex bloom cosmo dawn element fable glow hearth icon journey keystone legacy
""".split())

REVIEW_TITLES = {5: ("love it", "exactly as described", "highly recommend", "great value", "perfect"),
                 4: ("very good", "works well", "nice quality", "happy with it"),
                 3: ("it's okay", "average", "does the job", "mixed feelings"),
                 2: ("not great", "disappointed", "smaller than expected"),
                 1: ("broke quickly", "do not buy", "not as pictured")}
REVIEW_BODIES = {5: "i bought this {noun} for my {who} and it is {attr}. would buy again.",
                 4: "good {noun}, {attr} as promised. the {opt} is a little different from the photo.",
                 3: "the {noun} is fine but not {attr} as the listing says.",
                 2: "the {noun} arrived late and the {opt} was wrong.",
                 1: "my {noun} stopped working after a week."}
REVIEW_WHO = ("wife", "husband", "daughter", "son", "mom", "dad", "office", "kitchen", "friend", "sister")

INSTRUCTION_TEMPLATES = (
    "i need a {a1} {q}",
    "i am looking for a {a1} {d} {q}",
    "i want a {d} {q} that is {a1}",
    "find me a {a1} and {a2} {d} {q}",
    "i'm looking for {d} {q} that is {a1} and {a2}",
    "i would like a {d} {q} which is {a1}",
    "get me a {a1} {d} {q}",
    "i need {a1} {q} that are {a2}",
    "buy me a {d} {q} with {a1}",
    "i am looking for a {q} that is {a1}, {a2} and {a3}",
    # Templates naming the brand: at full scale (1.18M products) they keep most targets findable.
    "i need a {a1} {q} from {b}",
    "i am looking for {b} {q} that is {a1} and {a2}",
    "i want a {d} {q} by {b} which is {a1}",
    "find me a {b} {q} with {a1}",
    "i'd like a {a1} {b} {d} {q}",
    "i need {b} {d} {q} that are {a1}",
)


@dataclass(frozen=True)
class QuerySpec:
    """One narrow category: how its products are named, described and optioned."""

    category: str
    query: str
    head: str                 # head noun phrase used in titles ("lip gloss")
    nouns: tuple[str, ...]    # which head words are nouns ("lip", "gloss")
    breadcrumb: str
    attributes: tuple[str, ...]
    options: tuple[tuple[str, tuple[str, ...]], ...]
    adjectives: tuple[str, ...]
    materials: tuple[str, ...]   # nouns used as title modifiers ("cotton", "oak")
    base_price: float
    uses: tuple[str, ...]


def _spec(category: str, query: str, head: str, breadcrumb: str, attributes: str, options: str,
          adjectives: str, materials: str, base_price: float, uses: str) -> QuerySpec:
    opts = []
    for part in options.split(";"):
        if not part:
            continue
        name, values = part.split(":", 1)
        pool = {"COLORS": COLORS, "CLOTHES": CLOTHES_SIZES, "SHOES": SHOE_SIZES, "PACKS": PACKS}.get(values)
        opts.append((name, pool if pool else tuple(v.strip() for v in values.split(","))))
    return QuerySpec(category, query, head, tuple(head.split()), breadcrumb.replace(" > ", " \u203a "),
                     tuple(a.strip() for a in attributes.split(",")), tuple(opts),
                     tuple(adjectives.split(",")), tuple(m for m in materials.split(",") if m),
                     base_price, tuple(uses.split(",")))


QUERIES: tuple[QuerySpec, ...] = (
    # ---------------------------------------------------------------- beauty
    _spec("beauty", "lip gloss", "lip gloss", "Beauty & Personal Care > Makeup > Lips > Lip Glosses",
          "long lasting,cruelty free,paraben free,high quality,easy apply,natural ingredients,moisturizing,non toxic",
          "color:COLORS;size:2 ml,5 ml,8 ml,10 ml", "shimmer,glossy,matte,sheer,plumping,tinted", "", 9.0,
          "daily wear,parties,gift"),
    _spec("beauty", "face moisturizer", "face moisturizer", "Beauty & Personal Care > Skin Care > Face > Creams & Moisturizers",
          "fragrance free,dermatologist tested,sensitive skin,hyaluronic acid,anti aging,oil free,non greasy,vitamin c",
          "size:1.7 ounce,3.4 ounce,6.7 ounce;scent:unscented,lavender,rose,green tea",
          "lightweight,hydrating,nourishing,daily,overnight,soothing", "aloe,collagen", 24.0, "dry skin,oily skin,night use"),
    _spec("beauty", "shampoo", "shampoo", "Beauty & Personal Care > Hair Care > Shampoo & Conditioner > Shampoos",
          "sulfate free,paraben free,color safe,natural ingredients,dry hair,tea tree,argan oil,hair growth",
          "size:8 fl oz,16 fl oz,33.8 fl oz;item package quantity:1,2,3",
          "clarifying,volumizing,repairing,gentle,daily,strengthening", "biotin,keratin,coconut", 14.0, "curly hair,damaged hair,men"),
    _spec("beauty", "nail polish", "nail polish", "Beauty & Personal Care > Foot, Hand & Nail Care > Nail Art & Polish > Nail Polish",
          "long lasting,quick dry,non toxic,chip resistant,high gloss,vegan,cruelty free",
          "color:COLORS;size:0.5 fl oz,0.25 fl oz", "glitter,metallic,neon,pastel,gel,nude", "", 8.0, "manicure,salon,gift"),
    _spec("beauty", "makeup brush set", "makeup brush set", "Beauty & Personal Care > Tools & Accessories > Makeup Brushes & Tools > Brush Sets",
          "high quality,easy carry,travel size,synthetic hair,eco friendly,soft bristles",
          "color:COLORS;style:10 pieces,14 pieces,18 pieces", "professional,premium,compact,luxury", "bamboo,wood", 16.0,
          "foundation,eyeshadow,travel"),
    _spec("beauty", "eyeshadow palette", "eyeshadow palette", "Beauty & Personal Care > Makeup > Eyes > Eyeshadow",
          "long lasting,highly pigmented,cruelty free,easy blend,waterproof,talc free",
          "color:COLORS", "shimmer,matte,neutral,smoky,glitter,warm", "", 19.0, "evening look,daily wear,gift"),
    _spec("beauty", "body wash", "body wash", "Beauty & Personal Care > Personal Care > Bath & Bathing Accessories > Body Washes",
          "natural ingredients,sulfate free,sensitive skin,paraben free,tea tree,dry skin,long lasting",
          "scent:lavender,coconut,vanilla,eucalyptus,citrus,unscented;size:12 fl oz,16 fl oz,32 fl oz",
          "moisturizing,refreshing,gentle,foaming,exfoliating", "charcoal,oatmeal,honey", 11.0, "men,women,kids"),
    _spec("beauty", "hair dryer", "hair dryer", "Beauty & Personal Care > Hair Care > Styling Tools & Appliances > Hair Dryers",
          "fast drying,low noise,easy carry,ionic technology,heat protection,long lasting",
          "color:black,white,pink,rose gold,purple", "compact,professional,foldable,travel,salon", "ceramic,tourmaline", 39.0,
          "travel,curly hair,home"),
    # ---------------------------------------------------------------- grocery
    _spec("grocery", "protein bar", "protein bar", "Grocery & Gourmet Food > Snacks & Sweets > Bars > Protein Bars",
          "gluten free,low sugar,high protein,non gmo,keto friendly,plant based,dairy free,soy free",
          "flavor name:chocolate chip,peanut butter,cookie dough,salted caramel,vanilla almond,birthday cake;size:12 count,24 count,pack of 6",
          "chewy,crunchy,organic,healthy,energy", "whey,almond", 22.0, "snack,workout,breakfast"),
    _spec("grocery", "coffee", "coffee beans", "Grocery & Gourmet Food > Beverages > Coffee, Tea & Cocoa > Coffee > Whole Coffee Beans",
          "fair trade,single origin,dark roast,medium roast,usda organic,low acid,kosher certified",
          "flavor name:original,french vanilla,hazelnut,mocha,caramel;size:12 ounce,2 pound,5 pound",
          "bold,smooth,rich,arabica,espresso", "", 15.0, "espresso,cold brew,drip"),
    _spec("grocery", "herbal tea", "herbal tea bags", "Grocery & Gourmet Food > Beverages > Coffee, Tea & Cocoa > Tea > Herbal",
          "caffeine free,usda organic,non gmo,kosher certified,gluten free,natural ingredients",
          "flavor name:chamomile,orange spice,ginger,hibiscus,lemon balm,rooibos;size:20 count,40 count,100 count",
          "calming,soothing,relaxing,loose,premium", "", 9.0, "sleep,digestion,gift"),
    _spec("grocery", "olive oil", "olive oil", "Grocery & Gourmet Food > Pantry Staples > Cooking & Baking > Oils > Olive",
          "extra virgin,cold pressed,non gmo,usda organic,kosher certified,first cold,bpa free",
          "size:16.9 fl oz,25.3 fl oz,33.8 fl oz,1 gallon", "imported,italian,greek,spanish,fruity", "", 18.0,
          "cooking,salad,dipping"),
    _spec("grocery", "beef jerky", "beef jerky", "Grocery & Gourmet Food > Snacks & Sweets > Jerky & Dried Meats > Beef",
          "high protein,low fat,gluten free,keto friendly,grass fed,no msg,low carb",
          "flavor name:original,teriyaki,black pepper,sweet & spicy,hickory smoked;size:2.85 ounce,8 ounce,pack of 3",
          "tender,smoked,thick cut,savory", "", 12.0, "snack,hiking,road trip"),
    _spec("grocery", "gummy candy", "gummy candy", "Grocery & Gourmet Food > Snacks & Sweets > Candy & Chocolate > Gummy Candy",
          "gluten free,fat free,individually wrapped,resealable bag,vegan,dye free,low calorie",
          "flavor name:assorted fruit,sour,watermelon,cherry,peach rings;size:5 pound,2 pound,pack of 12",
          "sweet,chewy,fruity,party", "", 13.0, "party,movie night,kids"),
    _spec("grocery", "pasta sauce", "pasta sauce", "Grocery & Gourmet Food > Pantry Staples > Canned, Jarred & Packaged Foods > Sauces",
          "no sugar added,non gmo,gluten free,plant based,low sodium,usda organic,keto friendly",
          "flavor name:marinara,tomato basil,arrabbiata,vodka,roasted garlic;size:24 ounce,pack of 2,pack of 6",
          "homemade,italian,chunky,classic,rich", "", 8.0, "pasta,pizza,dinner"),
    _spec("grocery", "dog treats", "dog treats", "Pet Supplies > Dogs > Treats > Biscuits",
          "grain free,natural ingredients,high protein,made usa,soft chewy,no artificial",
          "flavor name:chicken,beef,peanut butter,salmon,bacon;size:6 ounce,16 ounce,2 pound",
          "crunchy,training,dental,healthy", "", 14.0, "small dogs,puppies,large dogs"),
    # ---------------------------------------------------------------- fashion
    _spec("fashion", "men's t-shirt", "t-shirt", "Clothing, Shoes & Jewelry > Men > Clothing > Shirts > T-Shirts",
          "machine wash,short sleeve,slim fit,cotton spandex,moisture wicking,classic fit,quick dry",
          "color:COLORS;size:CLOTHES", "crew neck,graphic,basic,athletic,casual,v-neck", "cotton,polyester", 17.0,
          "gym,daily wear,summer"),
    _spec("fashion", "women's dress", "dress", "Clothing, Shoes & Jewelry > Women > Clothing > Dresses > Casual",
          "machine wash,long sleeve,short sleeve,elastic waist,button closure,hand wash,polyester spandex",
          "color:COLORS;size:CLOTHES", "floral,maxi,wrap,boho,midi,cocktail,summer", "chiffon,linen", 32.0,
          "wedding guest,beach,party"),
    _spec("fashion", "running shoes", "running shoes", "Clothing, Shoes & Jewelry > Men > Shoes > Athletic > Running",
          "non slip,rubber sole,lace up,memory foam,arch support,breathable mesh,lightweight design",
          "color:COLORS;size:SHOES", "lightweight,cushioned,trail,road,breathable", "mesh,knit", 59.0,
          "running,walking,gym"),
    _spec("fashion", "women's jeans", "jeans", "Clothing, Shoes & Jewelry > Women > Clothing > Jeans",
          "machine wash,high waist,button closure,stretch fabric,slim fit,butt lifting,relaxed fit",
          "color:light blue,dark indigo,black,white,medium blue;size:2,4,6,8,10,12,14,16",
          "skinny,straight leg,bootcut,distressed,vintage,wide leg", "denim", 39.0, "daily wear,work,casual"),
    _spec("fashion", "hoodie", "hoodie", "Clothing, Shoes & Jewelry > Men > Clothing > Active > Hoodies",
          "machine wash,long sleeve,drawstring closure,fleece lined,relaxed fit,zipper closure",
          "color:COLORS;size:CLOTHES", "pullover,zip up,oversized,warm,athletic", "cotton,fleece", 35.0,
          "winter,workout,lounge"),
    _spec("fashion", "sandals", "sandals", "Clothing, Shoes & Jewelry > Women > Shoes > Sandals > Flat",
          "open toe,non slip,rubber sole,arch support,ankle strap,adjustable strap",
          "color:black,brown,white,beige,gold,silver,pink;size:SHOES", "flat,platform,strappy,comfort,beach",
          "leather,cork", 29.0, "summer,beach,vacation"),
    _spec("fashion", "wrist watch", "wrist watch", "Clothing, Shoes & Jewelry > Men > Watches > Wrist Watches",
          "water resistant,stainless steel,quartz movement,easy read,leather band,scratch resistant",
          "color:black,silver,gold,rose gold,blue,brown", "analog,digital,minimalist,chronograph,sport", "leather,steel", 45.0,
          "business,sport,gift"),
    _spec("fashion", "socks", "socks", "Clothing, Shoes & Jewelry > Men > Clothing > Socks > Athletic",
          "machine wash,moisture wicking,arch support,cushioned sole,breathable mesh,odor control",
          "color:COLORS;size:small,medium,large;item package quantity:6,10,12", "ankle,crew,no show,compression,athletic",
          "cotton,wool", 14.0, "running,hiking,work"),
    # ---------------------------------------------------------------- furniture
    _spec("furniture", "office chair", "office chair", "Home & Kitchen > Furniture > Home Office Furniture > Home Office Desk Chairs",
          "lumbar support,easy assemble,height adjustable,heavy duty,high density,living room,swivel base",
          "color:black,grey,white,blue,pink,brown;style:with arms,without arms,with footrest",
          "ergonomic,executive,mesh,gaming,modern", "mesh,leather,fabric", 120.0, "home office,gaming,study"),
    _spec("furniture", "coffee table", "coffee table", "Home & Kitchen > Furniture > Living Room Furniture > Tables > Coffee Tables",
          "living room,easy assemble,storage space,solid wood,mid century,easy clean,tempered glass",
          "color:walnut,black,white,oak,rustic brown,grey;size:39 inch,43 inch,47 inch",
          "modern,rustic,farmhouse,round,industrial,lift top", "wood,glass,metal", 110.0, "living room,apartment,patio"),
    _spec("furniture", "bookshelf", "bookshelf", "Home & Kitchen > Furniture > Home Office Furniture > Bookcases",
          "easy assemble,storage space,living room,heavy duty,space saving,wall mounted",
          "color:walnut,black,white,oak,espresso,grey;size:3 tier,4 tier,5 tier",
          "industrial,ladder,corner,tall,open,cube", "wood,metal,bamboo", 75.0, "living room,bedroom,office"),
    _spec("furniture", "bed frame", "bed frame", "Home & Kitchen > Furniture > Bedroom Furniture > Beds, Frames & Bases > Bed Frames",
          "easy assemble,storage space,heavy duty,noise free,box spring,solid wood",
          "color:black,white,grey,brown,natural;size:twin,full,queen,king",
          "platform,upholstered,low profile,canopy,modern", "metal,wood,velvet", 190.0, "bedroom,guest room,kids"),
    _spec("furniture", "throw pillow covers", "throw pillow covers", "Home & Kitchen > Bedding > Decorative Pillows, Inserts & Covers > Throw Pillow Covers",
          "machine wash,zipper closure,living room,double sided,super soft,easy clean",
          "color:COLORS;size:18x18 inch,20x20 inch,16x16 inch,12x20 inch", "boho,velvet,farmhouse,striped,decorative",
          "linen,cotton,velvet", 16.0, "couch,bed,sofa"),
    _spec("furniture", "dining chairs", "dining chairs", "Home & Kitchen > Furniture > Kitchen & Dining Room Furniture > Chairs",
          "easy assemble,dining room,solid wood,heavy duty,easy clean,non slip",
          "color:black,white,grey,walnut,green,beige;item package quantity:2,4,6",
          "mid century,upholstered,modern,farmhouse,armless", "wood,velvet,leather,metal", 140.0, "kitchen,dining room,restaurant"),
    _spec("furniture", "shoe rack", "shoe rack", "Home & Kitchen > Storage & Organization > Clothing & Closet Storage > Shoe Organizers > Free Standing Shoe Racks",
          "easy assemble,space saving,storage space,heavy duty,living room,stackable",
          "color:black,white,bronze,natural,grey;size:3 tier,4 tier,5 tier,10 tier", "bamboo,entryway,narrow,tall,stackable",
          "bamboo,metal,wood", 28.0, "entryway,closet,garage"),
    _spec("furniture", "floor lamp", "floor lamp", "Tools & Home Improvement > Lighting & Ceiling Fans > Lamps & Shades > Floor Lamps",
          "living room,easy assemble,energy efficient,remote control,dimmable light,bedroom reading",
          "color:black,white,gold,brass,silver;style:led bulb,without bulb",
          "modern,arc,tripod,industrial,torchiere", "metal,wood,linen", 65.0, "living room,bedroom,office"),
    # ---------------------------------------------------------------- electronics
    _spec("electronics", "wireless earbuds", "wireless earbuds", "Electronics > Headphones, Earbuds & Accessories > Headphones & Earbuds > Earbud Headphones",
          "noise cancelling,long battery,water resistant,high definition,easy carry,fast charging,hands free",
          "color:black,white,blue,pink,grey,green", "bluetooth,sport,compact,true wireless,mini", "", 39.0,
          "running,calls,travel"),
    _spec("electronics", "phone case", "phone case", "Cell Phones & Accessories > Cases, Holsters & Sleeves > Basic Cases",
          "shock absorbing,easy install,wireless charging,slim fit,heavy duty,scratch resistant",
          "color:COLORS;style:iphone 13,iphone 14,iphone 15,galaxy s23,pixel 8", "clear,rugged,slim,glitter,magnetic",
          "silicone,leather", 13.0, "protection,gift,daily"),
    _spec("electronics", "usb c cable", "usb c cable", "Electronics > Computers & Accessories > Computer Accessories & Peripherals > Cables & Accessories > Cables > USB Cables",
          "fast charging,high speed,long lasting,nylon braided,data transfer,plug play",
          "color:black,white,grey,red,blue;size:3 ft,6 ft,10 ft;item package quantity:1,2,3", "braided,durable,short,right angle",
          "nylon", 11.0, "laptop,phone,car"),
    _spec("electronics", "bluetooth speaker", "bluetooth speaker", "Electronics > Portable Audio & Video > Portable Speakers & Docks > Portable Bluetooth Speakers",
          "water resistant,long battery,high definition,stereo sound,easy carry,hands free",
          "color:black,blue,red,grey,camo,teal", "portable,waterproof,mini,outdoor,party", "", 35.0,
          "outdoor,shower,party"),
    _spec("electronics", "hdmi cable", "hdmi cable", "Electronics > Television & Video > Accessories > Cables > HDMI Cables",
          "high speed,gold plated,ultra hd,plug play,high definition,easy install",
          "size:3 ft,6 ft,10 ft,15 ft,25 ft;item package quantity:1,2,5", "braided,flat,slim,premium,certified", "", 10.0,
          "tv,gaming,projector"),
    _spec("electronics", "wireless mouse", "wireless mouse", "Electronics > Computers & Accessories > Computer Accessories & Peripherals > Keyboards, Mice & Accessories > Mice",
          "plug play,long battery,easy carry,noise free,high precision,ergonomic design",
          "color:black,white,grey,pink,blue,rose gold", "silent,ergonomic,compact,vertical,rechargeable", "", 16.0,
          "laptop,office,travel"),
    _spec("electronics", "security camera", "security camera", "Electronics > Camera & Photo > Video Surveillance > Surveillance Cameras > Dome Cameras",
          "motion detection,night vision,easy install,high definition,two way audio,water resistant",
          "color:white,black;item package quantity:1,2,4", "wireless,outdoor,indoor,pan tilt,smart", "", 45.0,
          "home,baby monitor,garage"),
    _spec("electronics", "tablet stand", "tablet stand", "Electronics > Computers & Accessories > Tablet Accessories > Stands",
          "height adjustable,easy carry,non slip,heavy duty,foldable design,aluminum alloy",
          "color:silver,black,grey,rose gold,white", "adjustable,foldable,portable,desktop,360 rotating", "aluminum", 19.0,
          "desk,kitchen,bed"),
)

CATEGORIES = ("beauty", "grocery", "fashion", "furniture", "electronics")

DESCRIPTION_OPENERS = (
    "{brand} {head} is made for {use}.",
    "meet the {adj} {head} by {brand}, designed for {use}.",
    "upgrade your {use} routine with this {adj} {head}.",
    "this {head} by {brand} brings everyday comfort for {use}.",
)
DESCRIPTION_MIDDLES = (
    "it is {a1} and {a2}, ready for every day.",
    "customers choose it because it is {a1}.",
    "every piece is checked for quality and is {a1}.",
    "we designed it to be {a1} without compromise.",
)
DESCRIPTION_CLOSERS = (
    "satisfaction guaranteed: contact us with any question.",
    "a thoughtful gift for family and friends.",
    "available in several options.",
    "",
)
BULLET_TEMPLATES = (
    "{A}: {brand} {head} is {a} for {use}",
    "{A} - tested to stay {a} over time",
    "{A}: simple to clean and maintain",
    "Why {brand}: {a} design that fits {use}",
)
