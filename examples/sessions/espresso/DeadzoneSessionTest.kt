// NOT RUN HERE: an instrumented Android test needs the Android SDK and an emulator, which
// this repository's CI (Linux, no Android SDK) does not have. It is the flow of
// examples/sessions/test_session.py (which CI runs) as an Android team would write it;
// keep the two in step when the session API changes.
//
// Before the test, on the host: `swift run bench session --api 127.0.0.1:8474`. The
// emulator reaches the host's loopback at 10.0.2.2, so every 127.0.0.1 the API answers is
// rewritten to it. The app under test reads two intent extras this test sets:
// "deadzone.origin" (the interface endpoint it downloads from, as its origin) and
// "deadzone.storage" (where it keeps its downloads). The harness reads that directory at
// each announced kill from the host, which it cannot do inside an emulator: crash-recovery
// then has no disk to judge and says so (cellular-policy is judged on the bench's own
// evidence either way). Sync the app's directory to the host path before announcing the kill
// (adb pull) if crash-recovery is to be judged.
//
// Killing the app ends an Espresso test running in the app's own process, so this is a
// UiAutomator test in a separate test APK (its own process) that drives the app and kills
// it with `am crash` (a crash, announced as one). `am force-stop` would be a user
// force-quit (jobs and alarms cancelled): announce "userForceQuit" for it.

package com.example.deadzone

import android.content.Intent
import androidx.test.ext.junit.runners.AndroidJUnit4
import androidx.test.platform.app.InstrumentationRegistry
import androidx.test.uiautomator.By
import androidx.test.uiautomator.UiDevice
import androidx.test.uiautomator.Until
import org.json.JSONObject
import org.junit.Assert.assertEquals
import org.junit.Test
import org.junit.runner.RunWith
import java.net.HttpURLConnection
import java.net.URL

private const val API = "http://10.0.2.2:8474"
private const val APP = "com.example.downloads"

/** The session's API, over HttpURLConnection (an instrumentation thread may block). */
private fun call(method: String, path: String, body: JSONObject? = null): JSONObject {
    val connection = URL(API + path).openConnection() as HttpURLConnection
    connection.requestMethod = method
    connection.readTimeout = 120_000
    if (body != null) {
        connection.doOutput = true
        connection.setRequestProperty("Content-Type", "application/json")
        connection.outputStream.use { it.write(body.toString().toByteArray()) }
    }
    val status = connection.responseCode
    val text = (if (status < 400) connection.inputStream else connection.errorStream).bufferedReader().use { it.readText() }
    val answer = JSONObject(text)
    check(status in 200..299) { "$method $path: ${answer.optString("error", status.toString())}" }
    return answer
}

private fun announce(vararg fields: Pair<String, Any>) {
    call("POST", "/session/announce", JSONObject(fields.toMap()))
}

@RunWith(AndroidJUnit4::class)
class DeadzoneSessionTest {
    private val device = UiDevice.getInstance(InstrumentationRegistry.getInstrumentation())

    private fun launch(origin: String, storage: String) {
        val context = InstrumentationRegistry.getInstrumentation().context
        val intent = context.packageManager.getLaunchIntentForPackage(APP)!!
            .putExtra("deadzone.origin", origin).putExtra("deadzone.storage", storage)
            .addFlags(Intent.FLAG_ACTIVITY_CLEAR_TASK or Intent.FLAG_ACTIVITY_NEW_TASK)
        context.startActivity(intent)
        device.wait(Until.hasObject(By.pkg(APP).depth(0)), 10_000)
    }

    /** The app downloads "clear" on WiFi only, crashes mid-download and is relaunched: it must
     *  resume what it had (crash-recovery) and never touch cellular (cellular-policy). */
    @Test
    fun aDownloadSurvivesACrashAndKeepsOffCellular() {
        val state = call("GET", "/session")
        val origin = "http://" + state.getJSONObject("interfaces").getString("wifi").replace("127.0.0.1", "10.0.2.2")
        val storage = state.getString("storage")

        announce("event" to "launched", "after" to "clean")
        launch(origin, storage)
        device.findObject(By.text("Download clear")).click()
        announce("event" to "downloadRequested", "video" to "clear", "allowsCellular" to false)

        device.wait(Until.hasObject(By.text("2 segments")), 60_000)
        device.executeShellCommand("am crash $APP")
        announce("event" to "killed", "reason" to "crash")

        call("POST", "/deadzone/interfaces/wifi", JSONObject(mapOf("state" to "down", "mode" to "reset")))
        announce("event" to "launched", "after" to "crash")
        launch(origin, storage)
        call("POST", "/deadzone/interfaces/wifi", JSONObject(mapOf("state" to "up")))
        device.wait(Until.hasObject(By.text("Downloaded")), 120_000)

        val verdicts = call("POST", "/session/end").getJSONObject("verdicts")
        for (property in listOf("crash-recovery", "cellular-policy")) {
            val verdict = verdicts.getJSONObject(property)
            assertEquals(verdict.optString("summary"), "passed", verdict.getString("outcome"))
        }
    }
}
