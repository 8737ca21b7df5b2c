use workspace_engine::Engine;

fn main() {
    let e = Engine::start();
    e.stop();
    workspace_engine::version();
}
