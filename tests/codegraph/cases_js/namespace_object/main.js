function persist(x) {
  console.log('persist', x);
}

const api = {
  load() {
    return this.parse('1');
  },
  parse: function (s) {
    return Number(s);
  },
  save: (x) => persist(x),
  persist,
};

api.save(api.load());
api.persist(2);
