// The simdjson ceiling for Fetchlog's body decoding, on the same machine and the same
// recorded bodies as `fetchlog-bench --decode`. Not part of the build or of CI: it needs
// Debian's libsimdjson-dev, which Fetchlog does not depend on. Run it with ./run.sh.
//
// Two figures per body, best of 5 trials of 20 rounds, MB/s of body:
//   dom   – simdjson's DOM parser: the whole document validated and indexed (what
//           Fetchlog's tape parse does).
//   dtos  – the On-Demand API reading the same fields into the same shapes (strings
//           copied out, optional fields, arrays) as Fetchlog's DTOs, for the census and
//           a TVmaze shows page: the like-for-like comparison with DocumentDecoder.
#include <simdjson.h>
#include <chrono>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

using namespace simdjson;

struct Gnome {
    int64_t id, age; double weight, height;
    std::string name, thumbnail, hair;
    std::vector<std::string> professions, friends;
};

struct Show {
    int64_t id; std::string name;
    std::optional<std::string> url, type, language, status, premiered, ended, summary, medium, original;
    std::vector<std::string> genres;
    std::optional<int64_t> runtime, averageRuntime, updated;
    std::optional<double> rating;
};

static std::optional<std::string> optString(ondemand::object &o, const char *key) {
    auto v = o.find_field_unordered(key);
    if (v.error()) return std::nullopt;
    if (v.is_null()) return std::nullopt;
    std::string_view s; if (v.get_string().get(s)) return std::nullopt;
    return std::string(s);
}
static std::optional<int64_t> optInt(ondemand::object &o, const char *key) {
    auto v = o.find_field_unordered(key);
    if (v.error() || v.is_null()) return std::nullopt;
    int64_t n; if (v.get_int64().get(n)) return std::nullopt;
    return n;
}

static size_t census(ondemand::parser &parser, padded_string &json) {
    std::vector<Gnome> out;
    ondemand::document doc = parser.iterate(json);
    for (ondemand::object g : doc["Brastlewark"].get_array()) {
        Gnome x;
        x.id = g["id"].get_int64();
        x.name = std::string(std::string_view(g["name"].get_string()));
        x.thumbnail = std::string(std::string_view(g["thumbnail"].get_string()));
        x.age = g["age"].get_int64();
        x.weight = g["weight"].get_double();
        x.height = g["height"].get_double();
        x.hair = std::string(std::string_view(g["hair_color"].get_string()));
        for (std::string_view p : g["professions"].get_array()) x.professions.emplace_back(p);
        for (std::string_view f : g["friends"].get_array()) x.friends.emplace_back(f);
        out.push_back(std::move(x));
    }
    return out.size();
}

static size_t shows(ondemand::parser &parser, padded_string &json) {
    std::vector<Show> out;
    ondemand::document doc = parser.iterate(json);
    for (ondemand::object o : doc.get_array()) {
        Show s;
        s.id = o.find_field_unordered("id").get_int64();
        s.name = std::string(std::string_view(o.find_field_unordered("name").get_string()));
        s.url = optString(o, "url"); s.type = optString(o, "type"); s.language = optString(o, "language");
        auto genres = o.find_field_unordered("genres");
        if (!genres.error() && !genres.is_null())
            for (std::string_view g : genres.get_array()) s.genres.emplace_back(g);
        s.status = optString(o, "status");
        s.runtime = optInt(o, "runtime"); s.averageRuntime = optInt(o, "averageRuntime");
        s.premiered = optString(o, "premiered"); s.ended = optString(o, "ended");
        auto rating = o.find_field_unordered("rating");
        if (!rating.error() && !rating.is_null()) {
            auto average = rating.find_field_unordered("average");
            double d; if (!average.error() && !average.is_null() && !average.get_double().get(d)) s.rating = d;
        }
        auto image = o.find_field_unordered("image");
        if (!image.error() && !image.is_null()) {
            ondemand::object io = image.get_object();
            s.medium = optString(io, "medium"); s.original = optString(io, "original");
        }
        s.summary = optString(o, "summary");
        s.updated = optInt(o, "updated");
        out.push_back(std::move(s));
    }
    return out.size();
}

static double rate(size_t bytes, const std::function<void()> &body) {
    const int rounds = 20, trials = 5;
    body();
    double best = 1e9;
    for (int t = 0; t < trials; t++) {
        auto start = std::chrono::steady_clock::now();
        for (int r = 0; r < rounds; r++) body();
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return double(bytes) * rounds / 1e6 / best;
}

int main(int argc, char **argv) {
    std::string fixtures = argc > 1 ? argv[1] : "Tools/SampleUpstream/Sources/SampleUpstream/Fixtures/";
    std::printf("simdjson implementation: %s\n\n", get_active_implementation()->name().c_str());
    std::printf("| body | size | simdjson DOM parse | simdjson On-Demand → DTOs |\n|---|---:|---:|---:|\n");
    const char *bodies[] = {"brastlewark/census.json", "tvmaze/shows-page-0-2024.json", "tvmaze/shows-page-0-2019.json",
                            "tvmaze/show-1-episodes.json", "viaplay/ios-se-root-2022.json",
                            "viaplay/pc-se-serier-samtliga-category.json", "thmanyah/home-sections-page-1.json"};
    for (const char *name : bodies) {
        padded_string json = padded_string::load(fixtures + name);
        dom::parser dom;
        ondemand::parser od;
        double domRate = rate(json.size(), [&] { dom::element e = dom.parse(json); (void)e; });
        std::string dtos = "–";
        if (std::string(name) == "brastlewark/census.json")
            dtos = std::to_string(int(rate(json.size(), [&] { census(od, json); })));
        else if (std::string(name).rfind("tvmaze/shows-page", 0) == 0)
            dtos = std::to_string(int(rate(json.size(), [&] { shows(od, json); })));
        std::printf("| %s | %zu B | %.0f | %s |\n", name, json.size(), domRate, dtos.c_str());
    }
}
