const handlers = {
  user: {
    create(name) {
      return audit('create', name);
    },
    remove(name) {
      return audit('remove', name);
    },
  },
  ping: () => 'pong',
};

function audit(action, name) {
  console.log(action, name);
}

handlers.user.create('a');
handlers.ping();
handlers['user'].remove('b');
