function fetchUser(id) {
  return Promise.resolve({ id });
}

function render(user) {
  console.log(user.id);
}

function fail(err) {
  console.error(err);
}

function load(ids) {
  return Promise.all(ids.map((id) => fetchUser(id)))
    .then((users) => users.forEach((u) => render(u)))
    .catch((e) => fail(e));
}

load([1, 2]);
