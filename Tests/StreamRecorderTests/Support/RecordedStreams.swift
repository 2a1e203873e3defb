import Testing

/// The end-to-end tests on recorded streams, one at a time: each starts nginx and real
/// clients (`bench`, engines, ffmpeg, curl) and plays scenarios whose bounds are the
/// guides' (a force-quit's failure within 5 s of the launch). Side by side, a dozen of
/// them took the CPU the other suites' timed scenarios need (a fresh clone's test step
/// saw the Python engine report that failure 6 to 7.6 s after its launch in
/// `BenchLaunchCommandTests`); one after another they still end well before the run's
/// longest suites.
@Suite(.serialized) struct RecordedStreams {}
