"""The entities RestBench's 157 queries name, so that every gold path finds them (names only; every fact is ours).

RestBench (RestGPT) asks about real films, shows, people, companies and
artists. The mock world holds an entity of each name the queries use, with
made-up facts (years, ratings, casts, birthdays, track lists are invented or
assigned arbitrarily; they are not claims about the real works or people).
``catalog.py`` turns these rows into TMDB- and Spotify-shaped records.
"""
from __future__ import annotations

# title, year, director, lead cast (comma-separated), production company, collection, genre (one of the fixtures')
MOVIES = [
    ("The Dark Knight", 2008, "Christopher Nolan", "Christian Bale, Heath Ledger", "Warner Bros. Pictures", None, "Thriller"),
    ("Inception", 2010, "Christopher Nolan", "Leonardo DiCaprio, Elliot Page", "Warner Bros. Pictures", None, "Sci-Fi"),
    ("Oppenheimer", 2023, "Christopher Nolan", "Cillian Murphy, Emily Blunt", "Universal Pictures", None, "Drama"),
    ("Titanic", 1997, "James Cameron", "Leonardo DiCaprio, Kate Winslet", "Paramount Pictures", None, "Romance"),
    ("Avatar", 2009, "James Cameron", "Sam Worthington, Zoe Saldana", "20th Century Studios", None, "Sci-Fi"),
    ("Avatar: The Way of Water", 2022, "James Cameron", "Sam Worthington, Zoe Saldana", "20th Century Studios", None, "Sci-Fi"),
    ("Twilight", 2008, "Catherine Hardwicke", "Kristen Stewart, Robert Pattinson", "Summit Entertainment", None, "Romance"),
    ("The Matrix", 1999, "Lana Wachowski", "Keanu Reeves, Carrie-Anne Moss", "Warner Bros. Pictures", None, "Sci-Fi"),
    ("Django Unchained", 2012, "Quentin Tarantino", "Jamie Foxx, Christoph Waltz", "Columbia Pictures", None, "Drama"),
    ("Pulp Fiction", 1994, "Quentin Tarantino", "John Travolta, Uma Thurman", "Miramax", None, "Thriller"),
    ("The Shawshank Redemption", 1994, "Frank Darabont", "Tim Robbins, Morgan Freeman", "Castle Rock Entertainment", None, "Drama"),
    ("The Double Life of Veronique", 1991, "Krzysztof Kieslowski", "Irene Jacob, Philippe Volter", "Canal+", None, "Drama"),
    ("Mulholland Drive", 2001, "David Lynch", "Naomi Watts, Laura Harring", "Universal Pictures", None, "Thriller"),
    ("We Married as Job", 2016, "Nobuhiro Doi", "Yui Aragaki, Gen Hoshino", "TBS Television", None, "Comedy"),
    ("Barbie", 2023, "Greta Gerwig", "Margot Robbie, Ryan Gosling", "Warner Bros. Pictures", None, "Comedy"),
    ("Lost in Translation", 2003, "Sofia Coppola", "Scarlett Johansson, Bill Murray", "Focus Features", None, "Drama"),
    ("The Virgin Suicides", 1999, "Sofia Coppola", "Kirsten Dunst, James Woods", "Paramount Pictures", None, "Drama"),
    ("Killers of the Flower Moon", 2023, "Martin Scorsese", "Leonardo DiCaprio, Lily Gladstone", "Paramount Pictures", None, "Drama"),
    ("The Irishman", 2019, "Martin Scorsese", "Robert De Niro, Al Pacino", "Netflix Studios", None, "Drama"),
    ("The Wolf of Wall Street", 2013, "Martin Scorsese", "Leonardo DiCaprio, Jonah Hill", "Paramount Pictures", None, "Comedy"),
    ("The Godfather", 1972, "Francis Ford Coppola", "Marlon Brando, Al Pacino", "Paramount Pictures", None, "Drama"),
    ("Apocalypse Now", 1979, "Francis Ford Coppola", "Martin Sheen, Marlon Brando", "United Artists", None, "Drama"),
    ("Gran Torino", 2008, "Clint Eastwood", "Clint Eastwood, Bee Vang", "Warner Bros. Pictures", None, "Drama"),
    ("Juror #2", 2024, "Clint Eastwood", "Nicholas Hoult, Toni Collette", "Warner Bros. Pictures", None, "Thriller"),
    ("Seven Samurai", 1954, "Akira Kurosawa", "Toshiro Mifune, Takashi Shimura", "Toho", None, "Drama"),
    ("Rashomon", 1950, "Akira Kurosawa", "Toshiro Mifune, Machiko Kyo", "Daiei Film", None, "Drama"),
    ("Ran", 1985, "Akira Kurosawa", "Tatsuya Nakadai, Akira Terao", "Toho", None, "Drama"),
    ("Jaws", 1975, "Steven Spielberg", "Roy Scheider, Robert Shaw", "Universal Pictures", None, "Thriller"),
    ("Jurassic Park", 1993, "Steven Spielberg", "Sam Neill, Laura Dern", "Universal Pictures", None, "Sci-Fi"),
    ("Road House", 2024, "Doug Liman", "Jake Gyllenhaal, Katherine LaNasa", "Amazon MGM Studios", None, "Thriller"),
    ("The Campaign", 2012, "Jay Roach", "Will Ferrell, Katherine LaNasa", "Warner Bros. Pictures", None, "Comedy"),
    ("Star Wars", 1977, "George Lucas", "Mark Hamill, Harrison Ford", "Lucasfilm Ltd.", "Star Wars Collection", "Sci-Fi"),
    ("The Empire Strikes Back", 1980, "Irvin Kershner", "Mark Hamill, Carrie Fisher", "Lucasfilm Ltd.", "Star Wars Collection", "Sci-Fi"),
    ("Harry Potter and the Philosopher's Stone", 2001, "Chris Columbus", "Daniel Radcliffe, Emma Watson",
     "Warner Bros. Pictures", "Harry Potter Collection", "Animation"),
    ("Harry Potter and the Chamber of Secrets", 2002, "Chris Columbus", "Daniel Radcliffe, Rupert Grint",
     "Warner Bros. Pictures", "Harry Potter Collection", "Animation"),
    ("The Hunger Games", 2012, "Gary Ross", "Jennifer Lawrence, Josh Hutcherson", "Lionsgate", "The Hunger Games Collection", "Sci-Fi"),
    ("The Hunger Games: Catching Fire", 2013, "Francis Lawrence", "Jennifer Lawrence, Liam Hemsworth", "Lionsgate",
     "The Hunger Games Collection", "Sci-Fi"),
    ("The Hobbit: An Unexpected Journey", 2012, "Peter Jackson", "Martin Freeman, Ian McKellen", "New Line Cinema",
     "The Hobbit Collection", "Animation"),
    ("The Hobbit: The Desolation of Smaug", 2013, "Peter Jackson", "Martin Freeman, Richard Armitage", "New Line Cinema",
     "The Hobbit Collection", "Animation"),
    ("The Fast and the Furious", 2001, "Rob Cohen", "Vin Diesel, Paul Walker", "Universal Pictures",
     "The Fast and the Furious Collection", "Thriller"),
    ("2 Fast 2 Furious", 2003, "John Singleton", "Paul Walker, Tyrese Gibson", "Universal Pictures",
     "The Fast and the Furious Collection", "Thriller"),
    ("The Lord of the Rings: The Fellowship of the Ring", 2001, "Peter Jackson", "Elijah Wood, Ian McKellen", "New Line Cinema",
     "The Lord of the Rings Collection", "Animation"),
    ("The Lord of the Rings: The Two Towers", 2002, "Peter Jackson", "Elijah Wood, Viggo Mortensen", "New Line Cinema",
     "The Lord of the Rings Collection", "Animation"),
]

# name, first air year, seasons, episodes per season, director, lead cast, network, production company
TV = [
    ("Breaking Bad", 2008, 5, 13, "Vince Gilligan", "Bryan Cranston, Aaron Paul", "AMC", "Sony Pictures Television"),
    ("The Witcher", 2019, 3, 8, "Alik Sakharov", "Henry Cavill, Anya Chalotra", "Netflix", "Netflix Studios"),
    ("House of Cards", 2013, 6, 13, "David Fincher", "Kevin Spacey, Robin Wright", "Netflix", "Media Rights Capital"),
    ("The Last of Us", 2023, 2, 9, "Craig Mazin", "Pedro Pascal, Bella Ramsey", "HBO", "Sony Pictures Television"),
    ("Friends", 1994, 10, 24, "James Burrows", "Jennifer Aniston, David Schwimmer", "NBC", "Warner Bros. Television"),
    ("2 Broke Girls", 2011, 6, 24, "Michael Patrick King", "Kat Dennings, Beth Behrs", "CBS", "Warner Bros. Television"),
    ("The Big Bang Theory", 2007, 12, 24, "Mark Cendrowski", "Jim Parsons, Kaley Cuoco", "CBS", "Chuck Lorre Productions"),
    ("Westworld", 2016, 4, 10, "Jonathan Nolan", "Evan Rachel Wood, Jeffrey Wright", "HBO", "Warner Bros. Television"),
    ("Game of Thrones", 2011, 8, 10, "David Nutter", "Emilia Clarke, Kit Harington", "HBO", "Home Box Office"),
    ("Band of Brothers", 2001, 1, 10, "David Frankel", "Damian Lewis, Ron Livingston", "HBO", "DreamWorks Television"),
    ("The Mandalorian", 2019, 3, 8, "Jon Favreau", "Pedro Pascal, Gina Carano", "Disney+", "Lucasfilm Ltd."),
    ("Black Mirror", 2011, 6, 5, "Owen Harris", "Daniel Lapaine, Hayley Atwell", "Netflix", "House of Tomorrow"),
    ("Twin Peaks", 1990, 3, 8, "David Lynch", "Kyle MacLachlan, Sheryl Lee", "ABC", "Lynch/Frost Productions"),
    ("Sword Art Online", 2012, 4, 25, "Tomohiko Ito", "Yoshitsugu Matsuoka, Haruka Tomatsu", "Tokyo MX", "Aniplex"),
    ("Death Note", 2006, 1, 37, "Tetsuro Araki", "Mamoru Miyano, Kappei Yamaguchi", "Nippon TV", "Madhouse"),
    ("The Grand Tour", 2016, 5, 8, "Phil Churchward", "Jeremy Clarkson, Richard Hammond", "Prime Video", "W. Chump & Sons"),
    ("Top Gear", 2002, 33, 6, "Brian Klein", "Jeremy Clarkson, James May", "BBC Two", "BBC Studios"),
    ("Disclaimer", 2024, 1, 7, "Alfonso Cuaron", "Cate Blanchett, Kevin Kline", "Apple TV+", "Esperanto Filmoj"),
    ("Mrs. America", 2020, 1, 9, "Anna Boden", "Cate Blanchett, Rose Byrne", "FX", "FXP"),
    ("Queen of the South", 2016, 5, 13, "Catherine Hardwicke", "Alice Braga, Veronica Falcon", "USA Network", "Fox 21 Television Studios"),
    ("Intelligence", 2020, 2, 6, "David Schwimmer", "David Schwimmer, Nick Mohammed", "Sky One", "Sky Studios"),
]

# company name -> headquarters, country, id (TMDB's ids where a query names the company, e.g. Paramount's 4)
COMPANIES = {
    "Walt Disney Pictures": ("Burbank, California, United States", "US", 2),
    "Paramount Pictures": ("Hollywood, California, United States", "US", 4),
    "Universal Pictures": ("Universal City, California, United States", "US", 33),
}
NETWORK_HOMEPAGES = {"HBO": "https://www.hbo.com", "Netflix": "https://www.netflix.com", "CBS": "https://www.cbs.com"}

# Spotify: artist, genre, albums as (name, year, [track names]); a track "A & B" credits both artists
ARTISTS = [
    ("Mariah Carey", "pop", [("Music Box", 1993, ["Hero", "Without You", "Dreamlover"]),
                             ("Daydream", 1995, ["Fantasy", "One Sweet Day", "Always Be My Baby"]),
                             ("#1's", 1998, ["When You Believe", "Sweetheart", "I Still Believe"])]),
    ("Whitney Houston", "r&b", [("My Love Is Your Love", 1998, ["It's Not Right but It's Okay", "Heartbreak Hotel"])]),
    ("Lana Del Rey", "indie", [("Born to Die", 2012, ["Summertime Sadness", "Video Games", "Quiet Waters"])]),
    ("Taylor Swift", "pop", [("1989", 2014, ["Blank Space", "Style", "Shake It Off"]),
                             ("Midnights", 2022, ["Anti-Hero", "Lavender Haze", "Karma"])]),
    ("Jay Chou", "mandopop", [("Jay", 2000, ["Starry Mood", "Adorable Woman"]), ("Mojito", 2020, ["Mojito"])]),
    ("The Beatles", "rock", [("Abbey Road", 1969, ["Come Together", "Something", "Here Comes the Sun"]),
                             ("Let It Be", 1970, ["Let It Be", "Get Back", "Across the Universe"])]),
    ("Maroon 5", "pop", [("Songs About Jane", 2002, ["This Love", "She Will Be Loved"]),
                         ("Jordi", 2021, ["Beautiful Mistakes", "Lost", "Quiet Nights"])]),
    ("BIGBANG", "k-pop", [("MADE", 2016, ["Bang Bang Bang", "Loser", "Bae Bae"]), ("Still Life", 2022, ["Still Life"])]),
    ("Pink Floyd", "rock", [("The Dark Side of the Moon", 1973, ["Speak to Me", "Breathe", "Time", "Money"])]),
]
FEATURING = {"When You Believe": "Whitney Houston"}   # a second credited artist
