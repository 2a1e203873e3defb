import Testing
@testable import ClientComparison

/// What `bench compare --modes/--clients/--client` select, and the errors that say what to name.
@Suite struct ClientSelectionTests {
    @Test func modesDefaultToAllAndKeepTheGivenOrderOnce() throws {
        #expect(try ClientSelection.modes(nil) == FaultMode.allCases)
        #expect(try ClientSelection.modes("kill-rerun, clean,kill-rerun,") == [.killRerun, .clean])
    }

    @Test func anUnknownOrEmptyModeListIsAnErrorNamingTheKnownOnes() {
        #expect { try ClientSelection.modes("clean,wobbly") } throws: { "\($0)".contains("unknown fault mode \"wobbly\"") && "\($0)".contains("bandwidth-cap") }
        #expect { try ClientSelection.modes(" , ") } throws: { "\($0)".contains("names no fault mode") }
    }

    /// A `--client` of a built-in's name replaces the built-in; a new name is added at the end.
    @Test func ownClientsReplaceOrFollowTheBuiltIns() throws {
        let known = try ClientSelection.known(fileClients: [], extra: ["ffmpeg=echo mine {url} {output}", "mine=echo {url} {output}"])
        #expect(known.filter { $0.name == "ffmpeg" }.map(\.command) == ["echo mine {url} {output}"])
        #expect(known.last?.name == "mine")
        #expect(known.count == BuiltInClients.all.count + 1)
    }

    @Test func anUnknownClientIsAnErrorListingTheKnownOnes() throws {
        let known = try ClientSelection.known(fileClients: [], extra: ["mine=echo {url} {output}"])
        #expect { try ClientSelection.clients("mine,nobody", known: known, extra: [], fileClients: []) } throws: {
            "\($0)".contains("nobody") && "\($0)".contains("unknown client") && "\($0)".contains("mine")
        }
        #expect(try ClientSelection.clients("mine,mine", known: known, extra: [], fileClients: []).map(\.name) == ["mine"])
    }
}
